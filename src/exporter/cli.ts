#!/usr/bin/env -S MALLOC_MMAP_THRESHOLD_=32768 node --max-semi-space-size=1 --heap-growing-percent=50 --optimize-for-size
/** The daemon: `datanode-exporter --datanode.url http://127.0.0.1:3008`. Exit 2 on a bad config. */
import { EventEmitter } from 'node:events';
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { CliOptions } from './config/load.js';
import type { Config } from './config/schema.js';
import type { Logger } from './logger.js';
import type { WebAuth } from './web/start.js';

/*
 * Signals are handled from the first moment: everything else is imported dynamically, after the
 * handlers are in place. A SIGHUP that arrives while the exporter starts (before its configuration
 * is even loaded) is remembered and applied once it runs, instead of killing the process with
 * SIGHUP's default action (exit 129); a SIGTERM or SIGINT at any moment exits 0. The exporter,
 * once running, listens for the 'hup' and 'stop' events.
 */
class Signals extends EventEmitter<{ hup: []; stop: [signal: string] }> {
  private hup = false;
  private readonly handlers: [NodeJS.Signals, () => void][] = [
    // SIGHUP last: once it is caught, so are the others (the signal tests read exactly that).
    ['SIGTERM', () => this.stopOn('SIGTERM')],
    ['SIGINT', () => this.stopOn('SIGINT')],
    ['SIGHUP', () => void (this.listenerCount('hup') > 0 ? this.emit('hup') : (this.hup = true))],
  ];

  constructor() {
    super();
    for (const [signal, listener] of this.handlers) process.on(signal, listener);
  }

  private stopOn(signal: string): void {
    // Nothing is running yet that needs stopping: leave now.
    if (this.listenerCount('stop') === 0) process.exit(0);
    this.emit('stop', signal);
  }

  /** Whether a SIGHUP came before anyone listened for 'hup'. */
  hupPending(): boolean {
    return this.hup;
  }

  dispose(): void {
    for (const [signal, listener] of this.handlers) process.off(signal, listener);
  }
}

type Prepared = { exit: number } | { cli: CliOptions; config: Config; web: WebAuth | undefined; notes: string[] };

/** Flags, environment and files to a validated configuration, or the exit code (help, version, errors). */
async function prepare(argv: string[]): Promise<Prepared> {
  const { USAGE, loadConfig, parseCli } = await import('./config/load.js');
  const { ConfigError } = await import('./errors.js');
  try {
    const cli = parseCli(argv);
    if (cli.help) {
      process.stdout.write(`${USAGE}\n`);
      return { exit: 0 };
    }
    if (cli.version) {
      process.stdout.write((await import('./version.js')).versionText());
      return { exit: 0 };
    }
    const notes: string[] = [];
    const config = loadConfig(cli, process.env, notes);
    // TLS and basic auth (and bcrypt) are loaded only when a web config asks for them.
    const web = config.web.config_file ? (await import('./web/auth.js')).loadWebConfig(config.web.config_file) : undefined;
    if (cli.check) {
      const { inShard } = await import('./fleet/shard.js');
      const kept = inShard(config.targets, config.shard);
      const shard = config.shard ? ` (shard ${config.shard} keeps ${kept.length} of ${config.targets.length})` : '';
      process.stdout.write(`configuration is valid: ${kept.length} target(s)${shard}: ${kept.map((t) => t.name).join(', ')}\n`);
      for (const n of notes) process.stdout.write(`note: ${n}\n`);
      return { exit: 0 };
    }
    return { cli, config, web, notes };
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`datanode-exporter: configuration error: ${err.message}\n`);
      return { exit: 2 };
    }
    throw err;
  }
}

interface Running {
  url: string;
  healthUrl: string | undefined;
  reload: () => Promise<string[] | void>;
  stop: () => Promise<void>;
}

async function run(cli: CliOptions, config: Config, log: Logger, web: WebAuth | undefined): Promise<Running> {
  const { Exporter } = await import('./exporter.js');
  const { loadConfig } = await import('./config/load.js');
  const ex = new Exporter(config, log, () => loadConfig(cli));
  const url = await ex.start(undefined, web);
  return { url, healthUrl: ex.healthUrl, reload: () => ex.reload(), stop: () => ex.stop() };
}

export async function main(argv: string[]): Promise<number> {
  // The image's HEALTHCHECK: same flags, environment and config file, a GET of our own /healthz.
  if (argv[0] === 'healthcheck') return (await import('./web/healthcheck.js')).healthcheck(argv.slice(1));
  const signals = new Signals();
  try {
    return await serve(argv, signals);
  } finally {
    signals.dispose();
  }
}

async function serve(argv: string[], signals: Signals): Promise<number> {
  const prepared = await prepare(argv);
  if ('exit' in prepared) return prepared.exit;
  const { cli, config, web, notes } = prepared;
  const { createLogger } = await import('./logger.js');
  const { VERSION } = await import('./version.js');
  const { ConfigError } = await import('./errors.js');
  const log = createLogger(config.log.level, undefined, config.log.format);
  for (const note of notes) log.warn({ code: 'CONFIG_NOTE' }, note);
  // A promise nobody awaited must not take the exporter down; say so once per occurrence.
  process.on('unhandledRejection', (reason) => {
    log.error({ code: reason instanceof Error && 'code' in reason ? String(reason.code) : 'UNEXPECTED', err: errText(reason) }, 'unhandled rejection');
  });
  let exporter: Running;
  try {
    exporter = await run(cli, config, log, web);
  } catch (err) {
    log.fatal({ err: (err as Error).message, address: config.web.listen_address }, 'cannot listen');
    return 1;
  }
  // The targets this process polls: with --shard, its share only (discovered targets join later).
  const { inShard } = await import('./fleet/shard.js');
  log.info(
    {
      url: `${exporter.url}${config.web.telemetry_path}`,
      health: exporter.healthUrl,
      targets: inShard(config.targets, config.shard).map((t) => t.name),
      shard: config.shard,
      version: VERSION,
    },
    'serving metrics',
  );
  const reload = (): void => {
    exporter.reload().catch((err: unknown) => {
      // A bad new configuration leaves the running one in force.
      log.error(
        { code: err instanceof ConfigError ? err.code : 'UNEXPECTED', err: (err as Error).message },
        'reload failed; keeping the running configuration',
      );
    });
  };
  signals.on('hup', reload);
  if (signals.hupPending()) {
    log.info({ signal: 'SIGHUP' }, 'SIGHUP received while starting: reloading now');
    reload();
  }
  await stopped(signals, exporter, log);
  return 0;
}

const errText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Until SIGTERM or SIGINT: in-flight polls are aborted, and the process never takes longer than 5 s to exit. */
function stopped(signals: Signals, exporter: Running, log: Logger): Promise<void> {
  return new Promise<void>((resolve) => {
    let stopping = false;
    signals.on('stop', (signal: string): void => {
      if (stopping) return;
      stopping = true;
      log.info({ signal }, 'stopping');
      setTimeout(() => process.exit(0), 4_500).unref();
      void exporter.stop().then(resolve, resolve);
    });
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      // One JSON line, as every other log line: no raw stack trace on stderr.
      process.stderr.write(
        `${JSON.stringify({ level: 'fatal', time: new Date().toISOString(), app: 'datanode-exporter', code: 'UNEXPECTED', err: err instanceof Error ? err.message : String(err), msg: 'exporter failed' })}\n`,
      );
      process.exit(1);
    },
  );
}
