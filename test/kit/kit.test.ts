/**
 * The operator's kit, checked with what runs here (no Docker engine, no Helm binary): the alert
 * rules with promtool, the dashboards against their generator, the chart's copies and values
 * against their sources and schema, the Dockerfile against the image rules we promise.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { DASHBOARDS, dashboardFile, renderDashboard } from '../../scripts/dashboards.js';
import { LAUNCH_ENV, NODE_FLAGS, missingLaunchSettings } from '../../src/exporter/process/launch.js';

const read = (p: string): string => readFileSync(p, 'utf8');
type Rule = { alert: string; expr: string; for?: string; keep_firing_for?: string; labels: Record<string, string>; annotations: Record<string, string> };
const rules = (parseYaml(read('prometheus/alerts.yml')) as { groups: { rules: Rule[] }[] }).groups.flatMap((g) => g.rules);

function tool(cmd: string, args: string[]): { status: number | null; out: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.error) throw new Error(`${cmd} is required (apt-get install ${cmd === 'promtool' ? 'prometheus' : cmd}): ${r.error.message}`);
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe('alert rules', () => {
  it('promtool check rules passes', () => {
    const r = tool('promtool', ['check', 'rules', 'prometheus/alerts.yml']);
    expect(r.out).toMatch(/SUCCESS: 16 rules found/);
    expect(r.status).toBe(0);
  });

  it('promtool test rules passes, with a test for every alert', () => {
    const r = tool('promtool', ['test', 'rules', 'prometheus/alerts.test.yml']);
    expect(r.out).toMatch(/SUCCESS/);
    expect(r.status).toBe(0);
    const tests = parseYaml(read('prometheus/alerts.test.yml')) as { tests: { alert_rule_test?: { alertname: string; exp_alerts: unknown[] }[] }[] };
    const fired = new Set(tests.tests.flatMap((t) => (t.alert_rule_test ?? []).filter((a) => a.exp_alerts.length > 0).map((a) => a.alertname)));
    expect([...fired].sort()).toEqual(rules.map((r) => r.alert).sort());
  });

  it.each(rules.map((r) => [r.alert, r] as const))('%s has severity, summary, description, a runbook section and a de-flapping for', (_a, r) => {
    expect(['critical', 'warning', 'info']).toContain(r.labels.severity);
    expect(r.annotations.summary).toBeTruthy();
    expect(r.annotations.description).toBeTruthy();
    const anchor = /^docs\/runbook\.md#([a-z]+)$/.exec(r.annotations.runbook_url ?? '')?.[1];
    expect(anchor).toBe(r.alert.toLowerCase());
    expect(read('docs/runbook.md')).toContain(`## ${r.alert}\n`);
    if (r.labels.severity !== 'info') expect(r.for).toMatch(/^\d+m$/);
  });
});

describe('dashboards', () => {
  it('grafana/*.json are generated from scripts/dashboards.ts (npm run dashboards)', () => {
    for (const d of DASHBOARDS) expect(JSON.parse(read(dashboardFile(d)))).toEqual(renderDashboard(d));
    expect(readdirSync('grafana').filter((f) => f.endsWith('.json')).sort()).toEqual(DASHBOARDS.map((d) => `${d.uid}.json`).sort());
  });

  it.each(DASHBOARDS.map((d) => [d.uid, d] as const))('%s: stable uid, templated data source, variables, units and descriptions', (_u, d) => {
    const json = renderDashboard(d) as { uid: string; templating: { list: { name: string }[] }; panels: { description: string; datasource: { uid: string }; fieldConfig: { defaults: { unit: string } }; targets: { expr: string; datasource: { uid: string } }[] }[] };
    expect(json.uid).toMatch(/^vega-dn-[a-z]+$/);
    const vars = json.templating.list.map((v) => v.name);
    expect(vars).toEqual(expect.arrayContaining(['datasource', 'job', 'instance']));
    expect(vars.includes('target') || vars.includes('network')).toBe(true);
    for (const p of json.panels) {
      expect(p.description.length).toBeGreaterThan(10);
      expect(p.fieldConfig.defaults.unit).toBeTruthy();
      expect(p.datasource.uid).toBe('${datasource}');
      for (const t of p.targets) {
        expect(t.datasource.uid).toBe('${datasource}');
        if (/\b(rate|increase)\(/.test(t.expr)) expect(t.expr).toContain('[$__rate_interval]');
      }
    }
  });
});

describe('helm chart', () => {
  const chart = 'helm/datanode-exporter';
  it("the chart's rules and dashboards are the shipped files (npm run kit:sync)", () => {
    expect(read(`${chart}/files/alerts.yml`)).toBe(read('prometheus/alerts.yml'));
    const copies = readdirSync(`${chart}/files/dashboards`).sort();
    expect(copies).toEqual(readdirSync('grafana').filter((f) => f.endsWith('.json')).sort());
    for (const f of copies) expect(read(`${chart}/files/dashboards/${f}`)).toBe(read(`grafana/${f}`));
  });

  it('values.yaml satisfies values.schema.json, and the schema rejects bad values', () => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    const validate = ajv.compile(JSON.parse(read(`${chart}/values.schema.json`)) as object);
    const values = parseYaml(read(`${chart}/values.yaml`)) as Record<string, unknown>;
    expect(validate(values), JSON.stringify(validate.errors)).toBe(true);
    for (const bad of [
      { ...values, service: { type: 'ClusterIP', port: 'http' } },
      { ...values, securityContext: { allowPrivilegeEscalation: true } },
      { ...values, podSecurityContext: { runAsNonRoot: false } },
      { ...values, serviceMonitor: { enabled: 'yes' } },
      { ...values, config: { targets: [{ name: 'bad name', url: 'x' }] } },
      { ...values, unknownKey: 1 },
    ]) expect(validate(bad)).toBe(false);
  });

  it('templates cover the promised objects, hardened, with probes on /healthz and /readyz', () => {
    const t = (f: string): string => read(`${chart}/templates/${f}`);
    expect(t('servicemonitor.yaml')).toContain('kind: ServiceMonitor');
    expect(t('prometheusrule.yaml')).toContain('.Files.Get "files/alerts.yml"');
    expect(t('dashboards-configmap.yaml')).toContain('files/dashboards/*.json');
    const values = parseYaml(read(`${chart}/values.yaml`)) as { livenessProbe: { httpGet: { path: string } }; readinessProbe: { httpGet: { path: string } }; securityContext: Record<string, unknown>; dashboards: { labels: Record<string, string> } };
    expect(values.livenessProbe.httpGet.path).toBe('/healthz');
    expect(values.readinessProbe.httpGet.path).toBe('/readyz');
    expect(values.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
    expect(values.dashboards.labels).toHaveProperty('grafana_dashboard');
    expect(t('deployment.yaml')).toContain('secretName: {{ .Values.webConfig.existingSecret }}');
    // Balanced template actions: a cheap guard against a broken edit, since helm cannot run here.
    for (const f of readdirSync(`${chart}/templates`)) {
      const text = t(f);
      expect(text.split('{{').length, f).toBe(text.split('}}').length);
      const opens = (text.match(/\{\{-?\s*(if|with|range|define)\b/g) ?? []).length;
      const ends = (text.match(/\{\{-?\s*end\s*-?\}\}/g) ?? []).length;
      expect(ends, f).toBe(opens);
    }
  });
});

describe('Dockerfile', () => {
  const df = read('Dockerfile');
  it('multi-stage, current LTS, production dependencies only, non-root, node as the entry point, a health check', () => {
    expect(df.match(/^FROM /gm)?.length).toBeGreaterThanOrEqual(2);
    expect(Number(/node:(\d+)/.exec(df)?.[1])).toBeGreaterThanOrEqual(22);
    expect(df).toMatch(/npm prune --omit=dev|npm ci --omit=dev/);
    const final = df.slice(df.lastIndexOf('\nFROM '));
    expect(final).toMatch(/^USER node$/m);
    expect(final).toMatch(/^EXPOSE 19308$/m);
    expect(final).toMatch(/^HEALTHCHECK /m);
    const entry = /^ENTRYPOINT (\[.*\])$/m.exec(final)?.[1];
    expect(JSON.parse(entry!)[0]).toBe('node'); // exec form, no npm or shell between PID 1 and node
    expect(final).not.toMatch(/^(RUN|CMD|ENTRYPOINT).*\bnpm (start|run)\b/m);
  });
});

describe('launch settings (src/exporter/process/launch.ts)', () => {
  const env = Object.entries(LAUNCH_ENV).map(([k, v]) => `${k}=${v}`);
  it('the bin, npm start and the image start node with exactly the same flags and environment', () => {
    const shebang = read('src/exporter/cli.ts').split('\n')[0];
    expect(shebang).toBe(`#!/usr/bin/env -S ${env.join(' ')} node ${NODE_FLAGS.join(' ')}`);
    const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    expect(pkg.scripts.start).toBe(`${env.join(' ')} node ${NODE_FLAGS.join(' ')} dist/exporter/cli.js`);
    const df = read('Dockerfile');
    const final = df.slice(df.lastIndexOf('\nFROM '));
    expect(JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(final)![1]!)).toEqual(['node', ...NODE_FLAGS, 'dist/exporter/cli.js']);
    for (const e of env) expect(final).toMatch(new RegExp(`^ENV ${e}$`, 'm'));
  });

  it(`this Node (${process.version}) takes the launch flags without a word`, () => {
    // npm run test:image-node runs this file again on the image's Node major.
    const r = spawnSync(process.execPath, [...NODE_FLAGS, '-e', 'process.exit(typeof globalThis.gc === "function" ? 0 : 3)'], { encoding: 'utf8', env: { ...process.env, ...LAUNCH_ENV } });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('names what a process was started without', () => {
    expect(missingLaunchSettings([...NODE_FLAGS], { ...LAUNCH_ENV })).toEqual([]);
    expect(missingLaunchSettings(['--expose-gc'], {})).toEqual(['--max-semi-space-size=1', '--optimize-for-size', ...env]);
  });
});

describe('YAML lint', () => {
  it('yamllint passes on the shipped YAML (templates excluded: they are not YAML until rendered)', () => {
    const files = ['prometheus/alerts.yml', 'prometheus/alerts.test.yml', 'helm/datanode-exporter/Chart.yaml', 'helm/datanode-exporter/values.yaml'];
    const r = tool('yamllint', ['-d', '{extends: relaxed, rules: {line-length: {max: 220}}}', ...files]);
    expect(r.out).toBe('');
    expect(r.status).toBe(0);
  });
});
