/**
 * The polling half of the threaded exporter: collectors, the store and all rendering run here, so
 * that parsing a large response or rendering 100,000 series never delays a scrape on the main
 * thread. After each change it posts the rendered body (plain and gzip) to the main thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Exporter } from './app.js';
import { loadConfig, type CliOptions } from './config/load.js';
import { createLogger } from './logger.js';
import type { WorkerRequest, WorkerMessage } from './threaded.js';

const port = parentPort!;
const cli = (workerData as { cli: CliOptions }).cli;
const config = loadConfig(cli);
const log = createLogger(config.log.level);
const exporter = new Exporter(config, log, () => loadConfig(cli));

const post = (m: WorkerMessage, transfer: ArrayBuffer[] = []): void => port.postMessage(m, transfer);

/** A private copy whose memory can move to the main thread without copying again. */
function transferable(buf: Buffer): ArrayBuffer {
  const ab = new ArrayBuffer(buf.length);
  new Uint8Array(ab).set(buf);
  return ab;
}

// Coalesce bursts of changes (several collectors applying at once) into one publication.
let scheduled = false;
function publish(): void {
  if (scheduled) return;
  scheduled = true;
  setTimeout(() => {
    scheduled = false;
    const p = exporter.polled();
    const plain = transferable(p.plain);
    const gzip = transferable(p.gzip);
    post({ type: 'snapshot', plain, gzip, version: p.version, status: exporter.status(), pending: exporter.pending(), series: exporter.store.seriesCount() }, [plain, gzip]);
  }, 20);
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
      exporter.reload().then(
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
