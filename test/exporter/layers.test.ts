/**
 * The tree tells the data path, and no module imports (at run time) from a layer above its own.
 * Type-only imports are free: they vanish when compiled.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = 'src/exporter';
/** Lowest first: each layer may import from the ones before it. */
const LAYERS = ['http', 'engine', 'vega', 'config', 'fleet', 'web'];
const BASE = ['errors.ts', 'files.ts', 'logger.ts', 'version.ts', 'hash.ts'];

function rank(file: string): number {
  const rel = relative(ROOT, file).replace(/\.js$/, '.ts');
  if (BASE.includes(rel) || rel.startsWith('../')) return 0; // src/shared: the enums the simulator shares
  const layer = LAYERS.indexOf(rel.split('/')[0]!);
  return layer >= 0 ? layer + 1 : LAYERS.length + 1; // exporter.ts and cli.ts: the top
}

const files = (readdirSync(ROOT, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => join(ROOT, f));

describe('layers', () => {
  it('every directory under src/exporter has its place in the order', () => {
    const dirs = readdirSync(ROOT, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
    expect(dirs.sort()).toEqual([...LAYERS].sort());
  });

  it.each(files)('%s imports nothing from a layer above its own', (file) => {
    const upward: string[] = [];
    for (const m of readFileSync(file, 'utf8').matchAll(/^import (?!type )[^;]*?from '(\.[^']+)'|import\('(\.[^']+)'\)/gm)) {
      const target = normalize(join(dirname(file), m[1] ?? m[2]!));
      if (rank(target) > rank(file)) upward.push(target);
    }
    expect(upward).toEqual([]);
  });

  it('the check sees an upward import', () => {
    expect(rank('src/exporter/web/server.js')).toBeGreaterThan(rank('src/exporter/http/client.ts'));
    expect(rank('src/exporter/errors.js')).toBe(0);
  });
});
