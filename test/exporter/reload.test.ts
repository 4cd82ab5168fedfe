/** The reload gauges, as blackbox_exporter's: a refused configuration flips them to 0, a good one back to 1. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, parseCli } from '../../src/exporter/config/load.js';
import { Exporter } from '../../src/exporter/exporter.js';
import { createLogger } from '../../src/exporter/logger.js';
import { Scrape } from '../helpers/expo.js';
import { LogCapture } from '../helpers/exporter.js';
import { withFakeClock } from '../helpers/fake-clock.js';

const GOOD = 'targets: [{name: a, url: "http://127.0.0.1:9"}]\nlog: {level: silent}\n';
const T0 = Date.UTC(2026, 0, 1);

describe('config reload gauges', () => {
  it('start at 1 with the start time; a refused reload sets 0 and keeps the time; a good one sets 1 and the new time', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'dne-reload-')), 'c.yaml');
    writeFileSync(file, GOOD);
    const load = () => loadConfig(parseCli(['--config.file', file]), {});
    await withFakeClock(T0, async (clock) => {
      const ex = new Exporter(load(), createLogger('silent', new LogCapture()), load);
      const read = async (): Promise<[number | undefined, number | undefined]> => {
        await ex.exposition.body('text');
        await ex.exposition.flush();
        const m = new Scrape((await ex.exposition.body('text')).plain.toString('utf8'));
        return [m.value('datanode_exporter_config_last_reload_successful'), m.value('datanode_exporter_config_last_reload_success_timestamp_seconds')];
      };
      try {
        expect(await read()).toEqual([1, T0 / 1000]);

        await clock.advance(5_000);
        writeFileSync(file, 'targets: [{name: a, url: 1}]\n');
        await expect(ex.reload()).rejects.toThrow(/targets\.0\.url/);
        expect(await read()).toEqual([0, T0 / 1000]);

        await clock.advance(5_000);
        writeFileSync(file, GOOD);
        await ex.reload();
        expect(await read()).toEqual([1, T0 / 1000 + 10]);
      } finally {
        await ex.stop();
      }
    });
  });
});

describe('settings only a restart applies', () => {
  it('a reload that changes web.listen_address says so in the log and in datanode_exporter_config_restart_needed, and keeps the running value', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'dne-reload-')), 'c.yaml');
    const cfg = (listen: string, level = 'info'): string =>
      `targets: [{name: a, url: "http://127.0.0.1:9"}]\nweb: {listen_address: "${listen}"}\nlog: {level: ${level}}\n`;
    writeFileSync(file, cfg('127.0.0.1:19308'));
    const load = () => loadConfig(parseCli(['--config.file', file]), {});
    const logs = new LogCapture();
    const ex = new Exporter(load(), createLogger('info', logs, 'json'), load);
    const needed = async (): Promise<number | undefined> => {
      await ex.exposition.body('text');
      await ex.exposition.flush();
      return new Scrape((await ex.exposition.body('text')).plain.toString('utf8')).value('datanode_exporter_config_restart_needed');
    };
    const lastLine = (): Record<string, unknown> => logs.parsed().at(-1)!;
    try {
      expect(await needed()).toBe(0);

      writeFileSync(file, cfg(':19309'));
      expect(await ex.reload()).toEqual(['web.listen_address']);
      expect(lastLine()).toMatchObject({
        level: 'warn',
        code: 'RESTART_NEEDED',
        settings: ['web.listen_address'],
        msg: 'configuration reloaded but web.listen_address needs a restart: the running value is kept until then',
      });
      expect(await needed()).toBe(1);
      expect(await ex.reload(), 'still pending on the next reload: the server has not moved').toEqual(['web.listen_address']);

      writeFileSync(file, cfg(':19309', 'debug'));
      expect(await ex.reload()).toEqual(['web.listen_address', 'log.level']);
      expect(lastLine().msg).toContain('web.listen_address, log.level need a restart');

      // Back to what the process runs with: nothing pending, an ordinary reload.
      writeFileSync(file, cfg('127.0.0.1:19308'));
      expect(await ex.reload()).toEqual([]);
      expect(lastLine()).toMatchObject({ level: 'info', msg: 'configuration reloaded' });
      expect(await needed()).toBe(0);
    } finally {
      await ex.stop();
    }
  });
});
