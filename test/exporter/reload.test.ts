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
