/** File-based discovery: formats, re-reading on change only, broken and removed files keep their targets. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Discovery, sequenceEntries } from '../../../src/exporter/fleet/discovery.js';
import { createLogger } from '../../../src/exporter/logger.js';
import { LogCapture } from '../../helpers/exporter.js';

let dir: string;
let logs: LogCapture;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dne-discovery-'));
  logs = new LogCapture();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const file = (name: string, text: string): string => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const discovery = (...paths: string[]): Discovery => new Discovery(paths, createLogger('info', logs));
const names = (d: Discovery): string[] => d.targets.map((t) => t.name);
const rejections = (): Record<string, unknown>[] => logs.parsed().filter((l) => l.msg === 'discovery file rejected; keeping its previous targets');

describe('Discovery', () => {
  it('reads YAML and JSON, bare lists and {targets: [...]}, with the schema defaults', async () => {
    const d = discovery(
      file('a.yaml', '- name: a1\n  url: http://a1:3008\n  network: main\n'),
      file('b.yml', 'targets:\n  - { name: b1, url: "http://b1:3008" }\n'),
      file('c.json', JSON.stringify([{ name: 'c1', url: 'http://c1:3008' }])),
      file(
        'd.json',
        JSON.stringify({
          targets: [
            { name: 'd1', url: 'https://d1' },
            { name: 'd2', url: 'http://d2:1' },
          ],
        }),
      ),
    );
    expect(await d.refresh()).toBe(true);
    expect(names(d)).toEqual(['a1', 'b1', 'c1', 'd1', 'd2']);
    expect(d.targets[0]).toEqual({ name: 'a1', url: 'http://a1:3008', network: 'main', headers: {} });
    expect(logs.lines).toEqual([]);
  });

  it('an unchanged file is not re-parsed; a changed one is re-read, and removed targets go', async () => {
    const p = file('t.yaml', '- { name: x, url: "http://x:1" }\n- { name: y, url: "http://y:1" }\n');
    const d = discovery(p);
    expect(await d.refresh()).toBe(true);
    const before = d.targets;
    expect(await d.refresh()).toBe(false);
    expect(d.targets).toEqual(before);
    expect(d.targets[0]).toBe(before[0]); // the same objects: nothing was parsed again
    writeFileSync(p, '- { name: y, url: "http://y:1" }\n');
    expect(await d.refresh()).toBe(true);
    expect(names(d)).toEqual(['y']);
  });

  it('a broken file keeps its previous targets and is logged once, then recovers', async () => {
    const p = file('t.yaml', '- { name: x, url: "http://x:1" }\n');
    const other = file('o.yaml', '- { name: o, url: "http://o:1" }\n');
    const d = discovery(p, other);
    await d.refresh();
    writeFileSync(p, '- { name: x, url: [unclosed\n');
    expect(await d.refresh()).toBe(false);
    expect(await d.refresh()).toBe(false);
    expect(names(d)).toEqual(['x', 'o']);
    expect(rejections()).toEqual([expect.objectContaining({ level: 'warn', file: p, err: 'not valid YAML or JSON' })]);

    // Invalid against the schema: another message, so another line, naming the field.
    writeFileSync(p, '- { name: x, url: "ftp://x" }\n');
    expect(await d.refresh()).toBe(false);
    expect(await d.refresh()).toBe(false);
    expect(names(d)).toEqual(['x', 'o']);
    expect(rejections()).toHaveLength(2);
    expect(String(rejections()[1]!.err)).toMatch(/^0\.url: /);

    writeFileSync(p, '- { name: z, url: "http://z:1" }\n');
    expect(await d.refresh()).toBe(true);
    expect(names(d)).toEqual(['z', 'o']);
    expect(logs.parsed().filter((l) => l.msg === 'discovery file readable again')).toEqual([expect.objectContaining({ level: 'info', file: p })]);
  });

  it('a FIFO, a device or a file over 4 MiB is refused without reading it; the others still count', async () => {
    const fifo = join(dir, 'fifo.yaml');
    execFileSync('mkfifo', [fifo]);
    const big = file('big.yaml', '- { name: b, url: "http://b:1" }\n');
    truncateSync(big, 4 * 1024 * 1024 + 1);
    const ok = file('ok.yaml', '- { name: ok, url: "http://ok:1" }\n');
    const d = discovery(fifo, '/dev/zero', big, ok);
    expect(await d.refresh()).toBe(true);
    expect(names(d)).toEqual(['ok']);
    expect(rejections().map((r) => [r.file, r.err])).toEqual([
      [fifo, 'cannot read: not a regular file'],
      ['/dev/zero', 'cannot read: not a regular file'],
      [big, 'cannot read: larger than 4 MiB'],
    ]);
  });

  it('a removed file keeps its targets and is logged once', async () => {
    const p = file('t.json', '[{"name":"x","url":"http://x:1"}]');
    const d = discovery(p);
    await d.refresh();
    rmSync(p);
    expect(await d.refresh()).toBe(false);
    expect(await d.refresh()).toBe(false);
    expect(names(d)).toEqual(['x']);
    expect(rejections()).toEqual([expect.objectContaining({ file: p, err: 'cannot read: ENOENT' })]);
  });

  it('a file that comes back unchanged after a read error is readable again; a second removal is logged again', async () => {
    const text = '[{"name":"x","url":"http://x:1"}]';
    const p = file('t.json', text);
    const d = discovery(p);
    await d.refresh();
    rmSync(p);
    await d.refresh();
    file('t.json', text);
    await d.refresh();
    expect(names(d)).toEqual(['x']);
    expect(logs.parsed().filter((l) => l.msg === 'discovery file readable again')).toEqual([expect.objectContaining({ file: p })]);
    rmSync(p);
    await d.refresh();
    expect(rejections()).toHaveLength(2);
  });

  it('a file that does not exist yet yields no targets, and its targets appear once it does', async () => {
    const p = join(dir, 'later.yaml');
    const d = discovery(p);
    expect(await d.refresh()).toBe(false);
    expect(d.targets).toEqual([]);
    file('later.yaml', '- { name: late, url: "http://late:1" }\n');
    expect(await d.refresh()).toBe(true);
    expect(names(d)).toEqual(['late']);
  });

  it('a file listing more than max_targets_per_file, or bringing all files over max_targets, is refused whole with one log line; its previous targets stay (n06)', async () => {
    const list = (prefix: string, n: number): string =>
      JSON.stringify(Array.from({ length: n }, (_, i) => ({ name: `${prefix}${i}`, url: `http://${prefix}${i}:3008` })));
    const a = file('a.json', list('a', 2));
    const b = file('b.yaml', '- { name: b0, url: "http://b0:3008" }\n');
    const d = new Discovery([a, b], createLogger('info', logs), { maxTargetsPerFile: 3, maxTargets: 4 });
    await d.refresh();
    expect(names(d)).toEqual(['a0', 'a1', 'b0']);
    writeFileSync(a, list('a', 4)); // over the per-file limit
    expect(await d.refresh()).toBe(false);
    await d.refresh();
    expect(names(d)).toEqual(['a0', 'a1', 'b0']);
    writeFileSync(b, '- { name: b0, url: "http://b0:3008" }\n- { name: b1, url: "http://b1:3008" }\n- { name: b2, url: "http://b2:3008" }\n'); // 2 + 3 > 4
    expect(await d.refresh()).toBe(false);
    await d.refresh(); // read again (another file may have shrunk), not logged again
    expect(names(d)).toEqual(['a0', 'a1', 'b0']);
    expect(rejections().map((l) => [l.code, l.file])).toEqual([
      ['DISCOVERY_TOO_MANY_TARGETS', a],
      ['DISCOVERY_TOO_MANY_TARGETS', b],
    ]);
    writeFileSync(a, list('a', 1)); // room again: both apply
    await d.refresh();
    expect(names(d)).toEqual(['a0', 'b0', 'b1', 'b2']);
  });

  it('counts sequence entries on the tokens, at least the targets listed, stopping past the limit', () => {
    expect(sequenceEntries('[{"name":"a","url":"http://x","headers":{"a":"b","c":"d"}},{"name":"b","url":"http://y"}]', 10)).toBe(2);
    expect(sequenceEntries('targets:\n  - {name: a, url: "http://x,y"}\n  - name: c\n    url: |\n      - q\n', 10)).toBe(2);
    expect(sequenceEntries(JSON.stringify(Array.from({ length: 100_000 }, (_, i) => ({ name: `d${i}`, url: `http://h${i}:9` }))), 150)).toBe(151);
  });
});
