/**
 * The shipped dashboards (grafana/*.json) against Grafana's published dashboard schema: the types
 * of @grafana/schema (generated from Grafana's CUE schema: the dashboard, its panels, and each
 * panel plugin's options and field config). Each JSON file becomes a TypeScript constant of that
 * type and tsc checks it: unknown keys, wrong value types and values outside an enum fail. And every
 * stat and state panel says what is good and bad: thresholds and value mappings.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const FILES = readdirSync('grafana')
  .filter((f) => f.endsWith('.json'))
  .sort();
type Json = Record<string, unknown>;
const load = (f: string): Json => JSON.parse(readFileSync(`grafana/${f}`, 'utf8')) as Json;

/** The panel plugins the dashboards use, each with the module of its generated options types (in the package's exports). */
const PLUGINS: Record<string, { module: string; fieldConfig: boolean }> = {
  stat: { module: 'stat/panelcfg/x/StatPanelCfg_types.gen', fieldConfig: false },
  'state-timeline': { module: 'statetimeline/panelcfg/x/StateTimelinePanelCfg_types.gen', fieldConfig: true },
  table: { module: 'table/panelcfg/x/TablePanelCfg_types.gen', fieldConfig: true },
  timeseries: { module: 'timeseries/panelcfg/x/TimeSeriesPanelCfg_types.gen', fieldConfig: true },
};

/**
 * The dashboard type the JSON must satisfy. The schema's string enums are written as literal unions
 * (J), since JSON has strings, not enum members. Panel options are Partial (Grafana fills in the
 * rest), but every key given must exist with the right type. Override properties, which the schema
 * leaves as `value: unknown`, are checked against the field-config key they name.
 */
function preamble(): string {
  const plugins = Object.entries(PLUGINS);
  return [
    `import type { Dashboard, FieldConfig, FieldConfigSource, MatcherConfig, Panel } from '@grafana/schema';`,
    ...plugins.map(
      ([, p], i) =>
        `import type { Options as O${i}${p.fieldConfig ? `, FieldConfig as F${i}` : ''} } from '@grafana/schema/dist/esm/raw/composable/${p.module}';`,
    ),
    `type J<T> = T extends string ? \`\${T}\` : T extends number | boolean | null | undefined ? T : T extends readonly (infer U)[] ? J<U>[] : T extends object ? { [K in keyof T]: J<T[K]> } : T;`,
    `type Property = { [K in keyof FieldConfig]-?: { id: K; value: J<FieldConfig[K]> } }[keyof FieldConfig] | { id: \`custom.\${string}\`; value: unknown };`,
    `type Overrides = { matcher: J<MatcherConfig>; properties: Property[] }[];`,
    `type Typed<Type extends string, O, F> = J<Omit<Panel, 'type' | 'options' | 'fieldConfig'>> & { type: Type; options: J<Partial<O>>; fieldConfig: J<Omit<FieldConfigSource<F>, 'overrides'>> & { overrides: Overrides } };`,
    `type AnyPanel = ${plugins.map(([type, p], i) => `Typed<'${type}', O${i}, ${p.fieldConfig ? `F${i}` : 'Record<string, unknown>'}>`).join(' | ')};`,
    `export type Board = J<Omit<Dashboard, 'panels'>> & { panels: AnyPanel[] };`,
    '',
  ].join('\n');
}

let dir = '';
/** Writes one .ts file per dashboard (and per broken variant) and runs tsc over them all; returns its errors per file. */
function typecheck(dashboards: Record<string, unknown>): Map<string, string[]> {
  const files = Object.entries(dashboards).map(([name, json]) => {
    const file = `${name.replace(/\W+/g, '_')}.ts`;
    writeFileSync(join(dir, file), `import type { Board } from './board.js';\nexport const dashboard: Board = ${JSON.stringify(json, null, 2)};\n`);
    return file;
  });
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', skipLibCheck: true, types: [] },
      files: ['board.ts', ...files],
    }),
  );
  const r = spawnSync(process.execPath, [resolve('node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json'), '--pretty', 'false'], {
    encoding: 'utf8',
  });
  const errors = new Map<string, string[]>(files.map((f) => [f, []]));
  for (const line of `${r.stdout}${r.stderr}`.split('\n').filter(Boolean)) {
    const file = /^([^(]+)\(\d+,\d+\): error /.exec(line)?.[1]?.split(/[\\/]/).pop();
    if (file && errors.has(file)) errors.get(file)!.push(line);
    else if (!/^\s/.test(line)) errors.set('(other)', [...(errors.get('(other)') ?? []), line]);
  }
  return errors;
}

beforeAll(() => {
  // Inside the checkout (.tmp is ignored), so that tsc resolves @grafana/schema from node_modules.
  mkdirSync('.tmp', { recursive: true });
  dir = mkdtempSync(join('.tmp', 'dashboard-schema-'));
  writeFileSync(join(dir, 'board.ts'), preamble());
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

type PanelJson = { type: string; title: string; fieldConfig: { defaults: Json; overrides: { properties: { id: string; value: unknown }[] }[] } };
const panels = (d: Json): PanelJson[] => d.panels as PanelJson[];

describe("the dashboards against Grafana's schema (@grafana/schema types, checked by tsc)", () => {
  it('every grafana/*.json type-checks, and each kind of mistake in one of them is caught', { timeout: 120_000 }, () => {
    expect(FILES.length).toBeGreaterThan(0);
    for (const f of FILES) for (const p of panels(load(f))) expect(Object.keys(PLUGINS), `${f}: ${p.title}`).toContain(p.type);
    const fleet = load('vega-dn-fleet.json');
    const statAt = panels(fleet).findIndex((p) => p.type === 'stat');
    const tableAt = panels(fleet).findIndex((p) => p.type === 'table');
    // Each broken copy has one mistake of a kind the schema forbids.
    const broken = (change: (d: { panels: Json[] } & Json) => void): Json => {
      const d = structuredClone(fleet) as { panels: Json[] } & Json;
      change(d);
      return d;
    };
    const at = <T>(o: unknown, ...path: (string | number)[]): T => path.reduce<unknown>((x, k) => (x as Record<string | number, unknown>)[k], o) as T;
    const mistakes: Record<string, Json> = {
      'misspelt panel key': broken((d) => Object.assign(d.panels[statAt]!, { gridpos: { x: 0, y: 0, w: 1, h: 1 } })),
      'stat colour mode outside its enum': broken((d) => Object.assign(at<Json>(d.panels[statAt], 'options'), { colorMode: 'rainbow' })),
      'thresholds mode outside its enum': broken((d) =>
        Object.assign(at<Json>(d.panels[statAt], 'fieldConfig', 'defaults', 'thresholds'), { mode: 'relative-ish' }),
      ),
      'a threshold step without colour': broken((d) => at<Json[]>(d.panels[statAt], 'fieldConfig', 'defaults', 'thresholds', 'steps').push({ value: 3 })),
      'mapping of an unknown type': broken((d) => at<Json[]>(d.panels[statAt], 'fieldConfig', 'defaults', 'mappings').push({ type: 'valu', options: {} })),
      'override thresholds of the wrong shape': broken((d) =>
        at<Json[]>(d.panels[tableAt], 'fieldConfig', 'overrides').push({
          matcher: { id: 'byName', options: 'x' },
          properties: [{ id: 'thresholds', value: [1, 2] }],
        }),
      ),
      'variable of an unknown type': broken((d) => Object.assign(at<Json[]>(d, 'templating', 'list')[1]!, { type: 'querry' })),
      'schemaVersion as a string': broken((d) => Object.assign(d, { schemaVersion: '39' })),
    };
    const errors = typecheck({ ...Object.fromEntries(FILES.map((f) => [f, load(f)])), ...mistakes });
    expect(errors.get('(other)') ?? []).toEqual([]);
    for (const f of FILES) expect(errors.get(`${f.replace(/\W+/g, '_')}.ts`), f).toEqual([]);
    for (const m of Object.keys(mistakes)) expect(errors.get(`${m.replace(/\W+/g, '_')}.ts`)!.length, m).toBeGreaterThan(0);
  });
});

describe('stat and state panels say what is good and bad', () => {
  const cases = FILES.flatMap((f) =>
    panels(load(f))
      .filter((p) => p.type === 'stat' || p.type === 'state-timeline')
      .map((p) => [`${f}: ${p.title}`, p] as const),
  );
  it('there are such panels in every dashboard', () => {
    for (const f of FILES)
      expect(
        cases.some(([n]) => n.startsWith(`${f}:`)),
        f,
      ).toBe(true);
  });
  it.each(cases)('%s: coloured by thresholds, with value mappings', (_n, p) => {
    const d = p.fieldConfig.defaults as { color?: { mode: string }; thresholds?: { steps: { color: string; value: number | null }[] }; mappings?: unknown[] };
    expect(d.color?.mode).toBe('thresholds');
    expect(d.thresholds?.steps[0]?.value).toBeNull(); // a base colour for every value
    expect(d.thresholds!.steps.length).toBeGreaterThanOrEqual(1);
    const values = d.thresholds!.steps.slice(1).map((s) => s.value!);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(d.mappings?.length).toBeGreaterThan(0);
    // A query with its own thresholds has its own words too.
    for (const o of p.fieldConfig.overrides) {
      const ids = o.properties.map((x) => x.id);
      if (ids.includes('thresholds')) expect(ids).toEqual(expect.arrayContaining(['color', 'mappings']));
    }
  });
});

describe('every panel is filtered by its variables', () => {
  it.each(FILES)(
    '%s: each selector by job and exporter (a recording rule by data node or network), each query by data node or network, only variables the dashboard has',
    (f) => {
      const d = load(f) as { templating: { list: { name: string }[] }; panels: { title: string; targets: { expr: string }[] }[] };
      const vars = new Set(d.templating.list.map((v) => v.name));
      for (const p of d.panels) {
        for (const { expr } of p.targets) {
          const selectors = [...expr.matchAll(/([a-z_:]+)\{([^}]*)\}/g)].map((m) => [m[1]!, m[2]!] as const);
          expect(selectors.length, `${p.title}: ${expr}`).toBeGreaterThan(0);
          for (const [name, s] of selectors) {
            // Recording rules (level:metric:operations) aggregate every exporter: no scrape labels to filter by.
            if (name.includes(':')) expect(s, `${p.title}: ${expr}`).toMatch(/^(target|network|group)=~"\$(target|network)"/);
            else expect(s, `${p.title}: ${expr}`).toMatch(/^job=~"\$job", instance=~"\$instance"/);
          }
          expect(/\$(target|network)\b/.test(expr), `${p.title}: ${expr}`).toBe(true);
          for (const [, v] of expr.matchAll(/\$(\w+)/g)) if (v !== '__rate_interval') expect(vars, `${p.title}: $${v}`).toContain(v);
        }
      }
    },
  );
});
