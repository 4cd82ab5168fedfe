/** Log lines as logfmt (the default of the daemon) and as JSON. */
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/exporter/logger.js';
import { LogCapture } from '../helpers/exporter.js';
import { withFakeClock } from '../helpers/fake-clock.js';

const T0 = Date.UTC(2026, 10, 25, 14, 0, 0, 123);

async function logged(format: 'logfmt' | 'json', write: (log: ReturnType<typeof createLogger>) => void): Promise<string[]> {
  const out = new LogCapture();
  await withFakeClock(T0, async () => write(createLogger('info', out, format)));
  return out.lines;
}

describe('logfmt', () => {
  it('ts, level and msg first, then the fields; bare values bare, others quoted and escaped', async () => {
    const lines = await logged('logfmt', (log) => {
      log.info({ url: 'http://127.0.0.1:19308/metrics', targets: ['a', 'b'], n: 3, ok: true }, 'serving metrics');
      log.warn({ err: 'said "no"\nthen a\\b', empty: '', eq: 'a=b' }, 'x');
    });
    expect(lines).toEqual([
      'ts=2026-11-25T14:00:00.123Z level=info msg="serving metrics" app=datanode-exporter url=http://127.0.0.1:19308/metrics targets="[\\"a\\",\\"b\\"]" n=3 ok=true',
      'ts=2026-11-25T14:00:00.123Z level=warn msg=x app=datanode-exporter err="said \\"no\\"\\nthen a\\\\b" empty="" eq="a=b"',
    ]);
  });

  it('redacts configured headers and credentials as the JSON logs do', async () => {
    const [line] = await logged('logfmt', (log) => log.info({ target: { headers: { 'x-api-key': 'secret-123' } }, password: 'hunter2' }, 'm'));
    expect(line).toBe('ts=2026-11-25T14:00:00.123Z level=info msg=m app=datanode-exporter target="{\\"headers\\":\\"[redacted]\\"}" password=[redacted]');
  });
});

describe('json', () => {
  it('one JSON object a line, as before', async () => {
    const [line] = await logged('json', (log) => log.info({ n: 3 }, 'hello'));
    expect(JSON.parse(line!)).toEqual({ level: 'info', time: '2026-11-25T14:00:00.123Z', app: 'datanode-exporter', n: 3, msg: 'hello' });
  });
});
