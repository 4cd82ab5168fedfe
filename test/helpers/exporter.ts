/** Start the real exporter in-process against a URL, with logs captured in memory. */
import { Writable } from 'node:stream';
import { Exporter } from '../../src/exporter/exporter.js';
import { configSchema, type Config, type ConfigInput } from '../../src/exporter/config/schema.js';
import { createLogger } from '../../src/exporter/logger.js';

export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: () => void): void {
    for (const l of chunk.toString('utf8').split('\n')) if (l !== '') this.lines.push(l);
    cb();
  }
  get text(): string {
    return this.lines.join('\n');
  }
  parsed(): Record<string, unknown>[] {
    return this.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  }
}

export interface RunningExporter {
  exporter: Exporter;
  url: string;
  logs: LogCapture;
  stop: () => Promise<void>;
  /** Run every runner once more (or those of one collector) and wait. */
  poll: (collector?: string) => Promise<void>;
}

/**
 * In-process exporters by URL: a test scrape first lets the exporter render what its last poll
 * changed (it does within a second anyway: exposition/registry.ts), so that a test reads the poll
 * it just ran.
 */
export const running = new Map<string, Exporter>();

export async function startExporter(
  targetUrl: string,
  overrides: Partial<ConfigInput> = {},
  level = 'info',
  loadConfig?: () => Config,
): Promise<RunningExporter> {
  const config = configSchema().parse({ targets: [{ name: 'node1', url: targetUrl }], log: { level }, ...overrides });
  const logs = new LogCapture();
  const exporter = new Exporter(config, createLogger(config.log.level, logs), loadConfig);
  const url = await exporter.start('127.0.0.1:0');
  running.set(url, exporter);
  // Wait for the first poll of every collector, as /readyz does (ended, or running for a few
  // seconds against a node that does not answer), and for the network-scoped ones too once a node
  // has answered (none can start while every node is down). The bound only stops a hang.
  const answered = (): boolean => exporter.status().some((s) => s.collector === 'statistics' && s.success);
  const settled = (): boolean =>
    exporter.pending(true).length === 0 || (exporter.runners.every((r) => r.attempted()) && (exporter.networks.size > 0 || !answered()));
  for (let i = 0; i < 1200 && !settled(); i++) await new Promise((r) => setTimeout(r, 25));
  return {
    exporter,
    url,
    logs,
    stop: () => {
      running.delete(url);
      return exporter.stop();
    },
    poll: async (collector) => {
      await Promise.all(exporter.runners.filter((r) => !collector || r.collector.name === collector).map((r) => r.runOnce()));
    },
  };
}

/** A busy machine is slow, not wrong: whatever a caller asks, waitFor gives up only after this long. */
const HANG_GUARD_MS = 25_000;

/** Until `cond` holds: an event, polled; `timeoutMs` (at least HANG_GUARD_MS) only stops a hang. */
export async function waitFor(cond: () => Promise<boolean> | boolean, timeoutMs = HANG_GUARD_MS, stepMs = 50): Promise<void> {
  const end = Date.now() + Math.max(timeoutMs, HANG_GUARD_MS);
  for (;;) {
    if (await cond()) return;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
