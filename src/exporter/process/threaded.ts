/**
 * The serving half of the threaded exporter. The main thread only answers HTTP from the latest
 * body the worker posted; probes and reloads are forwarded to the worker and answered when it
 * replies. The worker's pino logs go to the same stdout.
 */
import { Worker } from 'node:worker_threads';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { CliOptions } from '../config/load.js';
import type { Config } from '../config/schema.js';
import type { Logger } from './logger.js';
import type { RunnerStatus } from '../schedule/runner.js';
import type { PolledBody } from '../web/server.js';
import { startWeb, type WebAuth } from '../web/start.js';
import { GcHint, SERVING_HEAP_GROWTH_BUDGET, plainGc, raiseHeapGrowth } from './gc-hint.js';

export type WorkerRequest =
  | { type: 'probe'; id: number; query: string; timeout: number | undefined }
  | { type: 'reload'; id: number }
  | { type: 'stop'; id: number };

export type WorkerMessage =
  /** Only the gzip body crosses: the plain one (ten times larger) is made here when first asked for. */
  | { type: 'snapshot'; gzip: ArrayBuffer; version: number; status: RunnerStatus[]; pending: string[]; series: number }
  | { type: 'reply'; id: number; ok: boolean; status?: number; body?: string; error?: string };

/**
 * A small young generation: polls allocate in short bursts, and V8's default keeps far more
 * resident for garbage that a smaller one collects just as well (docs/performance.md, "Memory").
 */
const LIMITS = { maxYoungGenerationSizeMb: 3 };

/** Omit that distributes over a union. */
type Without<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

function startWorker(workerData: unknown): Worker {
  const ts = import.meta.url.endsWith('.ts');
  const entry = new URL(`./worker${ts ? '.ts' : '.js'}`, import.meta.url);
  // Under tsx (development, tests) the worker needs tsx's loader registered inside it first.
  return ts
    ? new Worker(`import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(entry.href)}); })`, { eval: true, workerData, resourceLimits: LIMITS })
    : new Worker(entry, { workerData, resourceLimits: LIMITS });
}

export interface ThreadedExporter {
  url: string;
  reload: () => Promise<void>;
  stop: () => Promise<void>;
}

/**
 * The polled body as the serving thread holds it: gzip (what Prometheus asks for), and the plain
 * text unzipped on the first plain scrape after a change. Sending both would hand this thread ten
 * times the memory per change, and V8 answers external memory growth with full collections on
 * this thread: pauses under busy polls (docs/performance.md, "Scrapes while polls are applied").
 */
export function lazyPlain(gzip: Buffer, version: number): PolledBody {
  let plain: Buffer | undefined;
  return {
    gzip,
    version,
    get plain(): Buffer {
      plain ??= gunzipSync(gzip);
      return plain;
    },
  };
}

type Reply = Extract<WorkerMessage, { type: 'reply' }>;

/** The serving thread's side of the polling thread: the latest snapshot, and requests with replies. */
class PollingThread {
  polled: PolledBody = { plain: Buffer.alloc(0), gzip: gzipSync(Buffer.alloc(0)), version: 0 };
  status: RunnerStatus[] = [];
  pending: string[] = ['the polling thread (starting)'];
  series = 0;
  stopping = false;
  private exited = false;
  private nextId = 1;
  private readonly waiting = new Map<number, (m: Reply) => void>();
  private readonly worker: Worker;
  /** Bounds this thread's heap, whose growth V8 lets go further once raiseHeapGrowth has run. */
  private readonly gcHint: GcHint | undefined;

  constructor(workerData: unknown, log: Logger) {
    if (raiseHeapGrowth()) this.gcHint = new GcHint({ gc: plainGc(), growthBudgetBytes: SERVING_HEAP_GROWTH_BUDGET });
    this.worker = startWorker(workerData);
    this.worker.on('message', (m: WorkerMessage) => {
      if (m.type === 'snapshot') {
        this.polled = lazyPlain(Buffer.from(m.gzip), m.version);
        this.status = m.status;
        this.pending = m.pending;
        this.series = m.series;
      } else {
        this.waiting.get(m.id)?.(m);
        this.waiting.delete(m.id);
      }
    });
    this.worker.on('error', (err) => log.fatal({ err: err.message }, 'polling thread failed'));
    this.worker.on('exit', (code) => {
      this.exited = true;
      for (const w of this.waiting.values()) w({ type: 'reply', id: 0, ok: false, error: 'polling thread exited' });
      this.waiting.clear();
      if (code !== 0 && !this.stopping) {
        log.fatal({ code }, 'polling thread exited; stopping');
        process.exit(1);
      }
    });
  }

  ask(req: Without<WorkerRequest, 'id'>): Promise<Reply> {
    return new Promise((resolve) => {
      if (this.exited) return resolve({ type: 'reply', id: 0, ok: false, error: 'polling thread exited' });
      const id = this.nextId++;
      this.waiting.set(id, resolve);
      this.worker.postMessage({ ...req, id } as WorkerRequest);
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.gcHint?.cancel();
    await Promise.race([this.ask({ type: 'stop' }), new Promise((r) => setTimeout(r, 3000))]);
    await this.worker.terminate();
  }
}

export async function startThreaded(cli: CliOptions, config: Config, log: Logger, auth?: WebAuth): Promise<ThreadedExporter> {
  const thread = new PollingThread({ cli, config }, log);
  const reload = async (): Promise<void> => {
    const r = await thread.ask({ type: 'reload' });
    if (!r.ok) throw new Error(r.error);
  };
  const web = await startWeb(
    {
      polled: () => thread.polled,
      status: () => thread.status,
      pending: () => thread.pending,
      probe: async (query, timeout) => {
        const r = await thread.ask({ type: 'probe', query: query.toString(), timeout });
        return r.ok ? { status: r.status!, body: r.body! } : { status: 500, body: `probe failed: ${r.error}\n` };
      },
      reload,
      log,
      seriesCount: () => thread.series,
    },
    config.web,
    config.web.listen_address,
    auth,
  );
  return {
    url: web.url,
    reload,
    stop: async () => {
      await thread.stop();
      await web.stop();
    },
  };
}
