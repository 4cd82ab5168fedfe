/**
 * pino JSON logs. Redaction is a second line of defence: the code never logs response bodies,
 * configured request headers or credentials in the first place.
 */
import { pino, type Logger, type LevelWithSilent } from 'pino';

export type { Logger };

export const REDACT_PATHS = ['headers', '*.headers', 'swarmKey', '*.swarmKey', 'swarmKeySeed', '*.swarmKeySeed', 'password', '*.password', 'authorization', '*.authorization'];

export function createLogger(level: LevelWithSilent, destination?: pino.DestinationStream): Logger {
  const opts: pino.LoggerOptions = {
    level,
    base: { app: 'datanode-exporter' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    formatters: { level: (label) => ({ level: label }) },
  };
  return destination ? pino(opts, destination) : pino(opts);
}
