#!/usr/bin/env -S MALLOC_MMAP_THRESHOLD_=131072 node --max-semi-space-size=1 --optimize-for-size --expose-gc
/** The daemon: `datanode-exporter --datanode.url http://127.0.0.1:3008`. Exit 2 on a bad config. */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { VERSION } from './version.js';
import { startThreaded } from './threaded.js';
import { usePollingThread } from './config/settings.js';
import { ConfigError, USAGE, loadConfig, parseCli } from './config/load.js';
import { createLogger } from './logger.js';
import { missingLaunchSettings } from './launch.js';

export async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'healthcheck') return (await import('./healthcheck.js')).healthcheck(argv.slice(1));
  let cli;
  let config;
  let web: ReturnType<typeof import('./web-config.js')['loadWebConfig']> | undefined;
  try {
    cli = parseCli(argv);
    if (cli.help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (cli.version) {
      process.stdout.write(`datanode-exporter ${VERSION}\n`);
      return 0;
    }
    config = loadConfig(cli);
    // TLS and basic auth (and bcrypt) are loaded only when a web config asks for them.
    if (config.web.config_file) web = (await import('./web-config.js')).loadWebConfig(config.web.config_file);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`datanode-exporter: configuration error: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  if (cli.check) {
    process.stdout.write(`configuration is valid: ${config.targets.length} target(s)\n`);
    return 0;
  }
  const log = createLogger(config.log.level);
  const missing = missingLaunchSettings();
  if (missing.length > 0) log.warn({ missing }, 'started without the memory settings of the bin, npm start and the image: resident memory will be higher (docs/performance.md)');
  // A promise nobody awaited must not take the exporter down; say so once per occurrence.
  process.on('unhandledRejection', (reason) => {
    log.error({ code: reason instanceof Error && 'code' in reason ? String(reason.code) : 'UNEXPECTED', err: reason instanceof Error ? reason.message : String(reason) }, 'unhandled rejection');
  });
  // With a polling thread, collectors and rendering run in a worker and this thread only serves;
  // without one (small configurations, or --web.single-thread) both run here.
  let exporter: { reload: () => Promise<void>; stop: () => Promise<void> };
  let url: string;
  try {
    if (cli.singleThread || !usePollingThread(config)) {
      const { Exporter } = await import('./app.js'); // the threaded path loads it only in the worker
      const ex = new Exporter(config, log, () => loadConfig(cli));
      url = await ex.start(undefined, web);
      exporter = ex;
    } else {
      const t = await startThreaded(cli, config, log, web);
      url = t.url;
      exporter = t;
    }
  } catch (err) {
    log.fatal({ err: (err as Error).message, address: config.web.listen_address }, 'cannot listen');
    return 1;
  }
  log.info({ url: `${url}/metrics`, targets: config.targets.map((t) => t.name), version: VERSION, pollingThread: !cli.singleThread && usePollingThread(config) }, 'serving metrics');
  process.on('SIGHUP', () => {
    exporter.reload().catch((err: unknown) => {
      // A bad new configuration leaves the running one in force.
      log.error({ code: err instanceof ConfigError ? err.code : 'UNEXPECTED', err: (err as Error).message }, 'reload failed; keeping the running configuration');
    });
  });
  await new Promise<void>((resolve) => {
    const stop = (signal: string): void => {
      log.info({ signal }, 'stopping');
      // In-flight polls are aborted; never take longer than 5 s to exit.
      setTimeout(() => process.exit(0), 4_500).unref();
      void exporter.stop().then(resolve);
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`datanode-exporter: ${(err as Error).stack ?? String(err)}\n`);
      process.exit(1);
    },
  );
}
