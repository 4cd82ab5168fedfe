/** What a data node's error answers mean, where more than one collector reads them. */
import { UpstreamHttpError } from '../errors.js';

/** The node's answer when network history is switched off: a definite "down", not a failed poll. */
export function isNetworkHistoryDisabled(err: unknown): boolean {
  return err instanceof UpstreamHttpError && err.status === 500 && /network history service not initialised/.test(err.detailText ?? '');
}
