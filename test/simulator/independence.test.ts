/**
 * The simulator stands for a real data node: it must not share code with the exporter it tests.
 * Its package (simulator/) may import only itself, Node's built-ins and the root's src/shared/
 * (enum names, ids and time formats that both sides take from the reference).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = 'simulator';
const files = (readdirSync(ROOT, { recursive: true }) as string[]).filter((f) => /\.[jt]s$/.test(f) && !f.startsWith('node_modules')).map((f) => join(ROOT, f));

/** Where a file's imports lead: relative ones as paths from the repository root, others as written. */
function imports(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(/^import [^;]*?from '([^']+)'|import\('([^']+)'\)/gm)].map((m) => {
    const spec = m[1] ?? m[2]!;
    return spec.startsWith('.') ? normalize(join(dirname(file), spec)) : spec;
  });
}

const allowed = (target: string): boolean =>
  target.startsWith('simulator/') || target.startsWith('src/shared/') || target.startsWith('node:') || target.startsWith('tsx/');

describe('simulator independence', () => {
  it('sees the package’s sources and its bin', () => {
    expect(files).toContain('simulator/src/server.ts');
    expect(files).toContain('simulator/bin/datanode-simulator.js');
  });

  it.each(files)('%s imports nothing from the exporter', (f) => {
    expect(imports(f).filter((t) => !allowed(t))).toEqual([]);
  });

  it('the check sees an import of the exporter', () => {
    expect(allowed(normalize(join('simulator/src', '../../src/exporter/errors.js')))).toBe(false);
    expect(allowed('prom-client')).toBe(false);
  });
});
