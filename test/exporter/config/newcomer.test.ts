/** What a newcomer tripped on: each with the behaviour that now answers it. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../../src/exporter/cli.js';
import { FLAGS, USAGE, loadConfig, parseCli } from '../../../src/exporter/config/load.js';
import { README, renderFlagTable, withFlagTable } from '../../../scripts/flags-doc.js';
import { thrown } from '../../helpers/thrown.js';

const dir = mkdtempSync(join(tmpdir(), 'dne-newcomer-'));
const file = (name: string, text: string): string => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const THREE =
  'targets:\n  - {name: dn1, url: "http://127.0.0.1:3008"}\n  - {name: dn2, url: "http://127.0.0.1:3009"}\n  - {name: dn3, url: "http://127.0.0.1:3010"}\n';

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((c: string | Uint8Array) => ((out += String(c)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((c: string | Uint8Array) => ((err += String(c)), true));
  return { code: await main(argv), out, err };
}
afterEach(() => vi.restoreAllMocks());

describe('the flags', () => {
  it('the README flag table is the one made from the parser (npm run docs:flags)', () => {
    const readme = readFileSync(README, 'utf8');
    expect(withFlagTable(readme)).toBe(readme);
    for (const f of FLAGS) expect(renderFlagTable()).toContain(`--${f.flag}`);
  });

  it('--help lists every flag the parser takes, with its environment variable', () => {
    for (const f of FLAGS) {
      expect(USAGE).toContain(`--${f.flag}`);
      if (f.env) expect(USAGE).toContain(f.env);
      expect(() => parseCli([`--${f.flag}`, ...(f.type === 'string' ? ['x'] : [])])).not.toThrow();
    }
    expect(USAGE).toMatch(/^\s+datanode-exporter healthcheck/m);
  });

  it('an unknown flag points to --help', async () => {
    const r = await run(['--datanode.ur', 'http://x']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/Unknown option '--datanode\.ur'.*--help/);
  });
});

describe('the configuration', () => {
  it('a tab used for indentation is named as the reason, without quoting the file', () => {
    const p = file('tab.yaml', 'targets:\n\t- name: secret-token-123\n');
    const err = thrown(() => loadConfig(parseCli(['--config.file', p]), {}));
    expect(err.message).toBe(`config.file: ${p} is not valid YAML at line 2, column 1: a tab is used for indentation (YAML indents with spaces only)`);
    expect(err.message).not.toContain('secret-token-123');
  });

  it("--datanode.url says that it replaces the file's targets", () => {
    const notes: string[] = [];
    const cfg = loadConfig(parseCli(['--config.file', file('three.yaml', THREE), '--datanode.url', 'http://127.0.0.1:4000']), {}, notes);
    expect(cfg.targets.map((t) => t.url)).toEqual(['http://127.0.0.1:4000']);
    expect(notes).toEqual([expect.stringMatching(/--datanode\.url replaces the 3 target\(s\) of .*three\.yaml/)]);
    const quiet: string[] = [];
    loadConfig(parseCli(['--datanode.url', 'http://127.0.0.1:4000']), {}, quiet);
    expect(quiet).toEqual([]);
  });

  it('--config.check lists the targets the shard keeps, and the notes', async () => {
    const p = file('three-b.yaml', THREE);
    const cfg = loadConfig(parseCli(['--config.file', p]), {});
    expect(cfg.targets.map((t) => t.name)).toEqual(['dn1', 'dn2', 'dn3']);
    // Shard i/n keeps the names whose FNV-1a (32-bit, of the UTF-8 bytes; docs/fleet.md) is i mod n, by hand:
    // dn1 0x9c6a8722, dn2 0x9b6a858f, dn3 0x9a6a83fc; only dn2's is odd.
    const r = await run(['--config.file', p, '--shard', '1/2', '--config.check']);
    expect(r.code).toBe(0);
    expect(r.out).toBe('configuration is valid: 1 target(s) (shard 1/2 keeps 1 of 3): dn2\n');
    const other = await run(['--config.file', p, '--shard', '0/2', '--config.check']);
    expect(other.out).toBe('configuration is valid: 2 target(s) (shard 0/2 keeps 2 of 3): dn1, dn3\n');
    const two = await run(['--config.file', p, '--datanode.url', 'http://127.0.0.1:4000', '--config.check']);
    expect(two.out).toMatch(/^note: --datanode\.url replaces the 3 target\(s\)/m);
  });
});
