/**
 * pino logs, as JSON or as logfmt (`ts=… level=… msg=… key=value`, as Prometheus's own exporters
 * write them). Redaction is a second line of defence: the code never logs response bodies,
 * configured request headers or credentials in the first place.
 */
import { pino, type Logger, type LevelWithSilent } from 'pino';

export type { Logger };

export type LogFormat = 'logfmt' | 'json';

export const REDACT_PATHS = [
  'headers',
  '*.headers',
  'swarmKey',
  '*.swarmKey',
  'swarmKeySeed',
  '*.swarmKeySeed',
  'password',
  '*.password',
  'authorization',
  '*.authorization',
];

/** A logfmt value: bare when it can be, else quoted with `"`, `\` and control characters escaped. */
function logfmtValue(v: unknown): string {
  const s = typeof v === 'string' ? v : (JSON.stringify(v) ?? 'null');
  if (s !== '' && !/[\s"=\\\p{Cc}]/u.test(s)) return s;
  return `"${s.replace(/[\\"\p{Cc}]/gu, (c) => ({ '\\': '\\\\', '"': '\\"', '\n': '\\n', '\r': '\\r', '\t': '\\t' })[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;
}

/** One pino JSON line as one logfmt line: ts, level and msg first, then the other fields in order. */
export function toLogfmt(line: string): string {
  const { time, level, msg, ...rest } = JSON.parse(line) as Record<string, unknown>;
  const fields: [string, unknown][] = [['ts', time], ['level', level], ['msg', msg], ...Object.entries(rest)];
  return `${fields
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k.replace(/[^\w.-]/g, '_')}=${logfmtValue(v)}`)
    .join(' ')}\n`;
}

export function createLogger(level: LevelWithSilent, destination?: pino.DestinationStream, format: LogFormat = 'json'): Logger {
  const opts: pino.LoggerOptions = {
    level,
    base: { app: 'datanode-exporter' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    formatters: { level: (label) => ({ level: label }) },
  };
  if (format === 'json') return destination ? pino(opts, destination) : pino(opts);
  // As pino's own default: asynchronous, so that a full stdout pipe never blocks the exporter; flushed on exit.
  const out = destination ?? pino.destination({ dest: process.stdout.fd, sync: false });
  // pino writes JSON only; each line is rewritten here, on the same thread (a transport would add a worker).
  return pino(opts, { write: (line: string) => void out.write(toLogfmt(line)) });
}
