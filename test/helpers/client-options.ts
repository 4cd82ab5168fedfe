/** An HttpClient's options for tests against a node on loopback: short timeouts, the exporter's list bounds, generous pacing. */
import type { ClientOptions } from '../../src/exporter/http/client.js';
import { ENDPOINT_ROWS } from '../../src/exporter/vega/endpoints.js';

export const clientOptions = (url: string, over: Partial<ClientOptions> = {}): ClientOptions => ({
  url,
  headers: {},
  connectTimeoutMs: 1000,
  headersTimeoutMs: 2000,
  bodyTimeoutMs: 2000,
  requestTimeoutMs: 3000,
  maxResponseBytes: 1024 * 1024,
  lists: ENDPOINT_ROWS,
  requestsPerSecond: 100,
  burst: 100,
  retries: 2,
  ...over,
});
