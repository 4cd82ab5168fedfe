import type { AnyCollectorModule } from '../collectors/define.js';
import type { Config } from '../config/schema.js';
import type { SeriesStore } from '../exposition/store.js';
import type { Logger } from '../process/logger.js';
import type { PacerRegistry } from '../upstream/pace.js';

/** What every target and network runtime is built from. */
export interface RuntimeContext {
  config: Config;
  store: SeriesStore;
  log: Logger;
  /** The collector registry (collectors/index.ts, or a test's own list). */
  collectors: readonly AnyCollectorModule[];
  /** Pacing and back-off per upstream host and port, shared by polls and probes. */
  pacers?: PacerRegistry;
}
