/**
 * The polling half of the threaded exporter: collectors, the store and all rendering run here, so
 * that parsing a large response or rendering 100,000 series never delays a scrape on the main
 * thread. After each change it posts the gzipped body to the main thread (transferred, not copied).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Exporter } from '../exporter.js';
import type { CliOptions } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { createLogger } from './logger.js';
import { gzipBody } from '../exposition/store.js';
import type { WorkerRequest, WorkerMessage } from './threaded.js';

const port = parentPort!;
// The main thread validated the configuration; the worker loads the schema only to reload it.
const { cli, config } = workerData as { cli: CliOptions; config: Config };
const log = createLogger(config.log.level);
let load: ((c: CliOptions) => Config) | undefined;
const exporter = new Exporter(config, log, () => {
  if (!load) throw new Error('configuration loader not ready');
  return load(cli);
});

const post = (m: WorkerMessage, transfer: ArrayBuffer[] = []): void => port.postMessage(m, transfer);

/** Gzip into a fresh ArrayBuffer (a pooled Buffer's memory cannot be transferred). */
function gzipTransferable(plain: Buffer): ArrayBuffer {
  const gz = gzipBody(plain);
  const ab = new ArrayBuffer(gz.length);
  new Uint8Array(ab).set(gz);
  return ab;
}

// Coalesce bursts of changes (several collectors applying at once) into one publication, and
// publish at most once a second and at most once per four times the last one's cost: each renders
// and gzips the whole body, and with many targets changes arrive so often that this thread would
// otherwise spend its time rendering instead of polling (polls then start late). A change after a
// quiet second is published at once.
const MIN_PUBLISH_INTERVAL_MS = 1000;
let scheduled = false;
let publishedAt = 0;
let publishCostMs = 0;
function publish(): void {
  if (scheduled) return;
  scheduled = true;
  setTimeout(() => {
    scheduled = false;
    const t0 = performance.now();
    const gzip = gzipTransferable(exporter.store.renderUncached());
    post({ type: 'snapshot', gzip, version: exporter.store.version, status: exporter.status(), pending: exporter.pending(), series: exporter.store.seriesCount() }, [gzip]);
    publishedAt = performance.now();
    publishCostMs = publishedAt - t0;
  }, Math.max(20, publishedAt + Math.max(MIN_PUBLISH_INTERVAL_MS, 4 * publishCostMs) - performance.now()));
}
exporter.store.onChange = publish;

port.on('message', (req: WorkerRequest) => {
  const reply = (body: Omit<Extract<WorkerMessage, { type: 'reply' }>, 'type' | 'id'>): void => post({ type: 'reply', id: req.id, ...body });
  switch (req.type) {
    case 'probe':
      exporter.probe(new URLSearchParams(req.query), req.timeout).then(
        (r) => reply({ ok: true, status: r.status, body: r.body }),
        (e: unknown) => reply({ ok: false, error: (e as Error).message }),
      );
      break;
    case 'reload':
      import('../config/load.js')
        .then((m) => {
          load = m.loadConfig;
          return exporter.reload();
        })
        .then(
        () => {
          reply({ ok: true });
          publish();
        },
        (e: unknown) => reply({ ok: false, error: (e as Error).message }),
      );
      break;
    case 'stop':
      exporter.stop().then(
        () => reply({ ok: true }),
        (e: unknown) => reply({ ok: false, error: (e as Error).message }),
      );
      break;
  }
});

await exporter.startCore();
publish();
