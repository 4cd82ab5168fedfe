/**
 * The tree tells the data path, and no module imports (at run time) from a layer above its own.
 * Type-only imports vanish when compiled and are free, except that the engine and the transport
 * (engine/, http/) never name a layer above theirs (the domain: vega/, fleet/; nor config/, web/),
 * not even as a type.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import ts from 'typescript';
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

/** The layers whose type imports obey the order too: the engine and the transport must not name the domain at all. */
const STRICT = ['http', 'engine'];
const layerOf = (file: string): string => relative(ROOT, file).split('/')[0]!;
const namesAbove = (file: string, target: string): boolean => STRICT.includes(layerOf(file)) && rank(target) > rank(file);

/** Relative imports of a source text: every `import ... from`, `export ... from` and `import()`, and whether it is type-only. */
function importsOf(text: string): { spec: string; typeOnly: boolean }[] {
  return [...text.matchAll(/^(import|export) (type )?[^;]*?from '(\.[^']+)'|import\('(\.[^']+)'\)/gm)].map((m) => ({
    spec: m[3] ?? m[4]!,
    typeOnly: m[2] !== undefined,
  }));
}

/**
 * The domain's words: the node, its API's resources. The exporter's own name (`datanode_exporter_`
 * series, its User-Agent) is not the domain and is left out.
 */
const VEGA = /^(vega|datanode|markets?|party|parties|positions?|rotations?|signatures?|networkhistory|validators?|assets?)$/i;
const OWN_NAME = /datanode[-_]exporter/gi;
/** The words of a name or a text: camelCase humps, and runs of letters between anything else. */
const words = (s: string): string[] => s.replace(OWN_NAME, ' ').split(/[^A-Za-z]+|(?<=[a-z])(?=[A-Z])/);

/** The identifiers and string literals of a source text that name the domain (comments are not read). */
const isLiteral = (n: ts.Node): n is ts.LiteralLikeNode =>
  ts.isStringLiteralLike(n) || ts.isTemplateHead(n) || ts.isTemplateMiddle(n) || ts.isTemplateTail(n) || ts.isRegularExpressionLiteral(n);

function vegaNames(text: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const name = ts.isIdentifier(node) || ts.isPrivateIdentifier(node) ? node.text : isLiteral(node) ? node.text : undefined;
    if (name !== undefined && words(name).some((w) => VEGA.test(w))) found.push(name);
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile('f.ts', text, ts.ScriptTarget.Latest));
  return found;
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
    for (const { spec, typeOnly } of importsOf(readFileSync(file, 'utf8'))) {
      const target = normalize(join(dirname(file), spec));
      if ((!typeOnly && rank(target) > rank(file)) || namesAbove(file, target)) upward.push(target);
    }
    expect(upward).toEqual([]);
  });

  it.each(files.filter((f) => STRICT.includes(layerOf(f))))('%s names nothing of Vega', (file) => {
    expect(vegaNames(readFileSync(file, 'utf8'))).toEqual([]);
  });

  it('the check sees an upward import', () => {
    expect(rank('src/exporter/web/server.js')).toBeGreaterThan(rank('src/exporter/http/client.ts'));
    expect(rank('src/exporter/errors.js')).toBe(0);
    const seen = importsOf("import type { Directory } from '../vega/directory.js';\nimport { x } from './y.js';");
    expect(seen).toEqual([
      { spec: '../vega/directory.js', typeOnly: true },
      { spec: './y.js', typeOnly: false },
    ]);
    expect(namesAbove('src/exporter/engine/define.ts', 'src/exporter/vega/directory.ts')).toBe(true);
    expect(namesAbove('src/exporter/http/client.ts', 'src/exporter/fleet/fleet.ts')).toBe(true);
    expect(namesAbove('src/exporter/vega/paginate.ts', 'src/exporter/engine/types.ts')).toBe(false);
    expect(namesAbove('src/exporter/engine/settings.ts', 'src/exporter/config/schema.ts')).toBe(true);
    expect(namesAbove('src/exporter/fleet/fleet.ts', 'src/exporter/vega/directory.ts')).toBe(false);
  });

  it("the check sees Vega names in code, not in comments nor in the exporter's own name", () => {
    const code = [
      '/** The markets of a Vega node. */',
      'const UA = `datanode-exporter/${v}`; // parties',
      "const a = { markets_data: 1 }; const b = 'positions';",
      'class DatanodeClient {}',
      'const c = `/x/${id}/rotations`; const d = /asset/; const marketId = 1;',
      "metric('datanode_exporter_up'); class Exposition {}",
    ].join('\n');
    expect(vegaNames(code)).toEqual(['markets_data', 'positions', 'DatanodeClient', '/rotations', '/asset/', 'marketId']);
  });
});
