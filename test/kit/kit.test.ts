/**
 * The operator's kit, checked without a Docker engine or a Helm binary: the alert rules with
 * promtool, the Alertmanager example with amtool, the dashboards against their generator, the
 * chart's copies and values against their sources and schema, the Dockerfile against the image
 * rules we promise (npm run test:image builds and runs it).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { DASHBOARDS, dashboardFile, renderDashboard } from '../../scripts/dashboards.js';
import { RUNBOOK_URL, runbookUrl, withRunbookUrl } from '../../scripts/runbook.js';
import { FLEET_EXPECTED, renderFleetTests } from '../../scripts/fleet-tests.js';
import { RESOLVE_CASES, renderResolveTests } from '../../scripts/resolve-tests.js';
import { SLO_DEFINITION, renderSloTests, sloGroups, sloPanel, withSloRules } from '../../scripts/slo.js';
import { launchSettings } from '../helpers/launch.js';
import { M } from '../helpers/metrics.js';
import { loadConfig, parseCli } from '../../src/exporter/config/load.js';

const read = (p: string): string => readFileSync(p, 'utf8');
type Rule = { alert: string; expr: string; for?: string; keep_firing_for?: string; labels: Record<string, string>; annotations: Record<string, string> };
type Recording = { record: string; expr: string };
const ruleGroups = (parseYaml(read('prometheus/alerts.yml')) as { groups: { name: string; rules: (Rule | Recording)[] }[] }).groups;
const rules = ruleGroups.flatMap((g) => g.rules).filter((r): r is Rule => 'alert' in r);
const records = ruleGroups.flatMap((g) => g.rules).filter((r): r is Recording => 'record' in r);
const RULE_TESTS = ['prometheus/alerts.test.yml', 'prometheus/fleet.test.yml', 'prometheus/resolve.test.yml', 'prometheus/slo.test.yml'];

function tool(cmd: string, args: string[]): { status: number | null; out: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  const pkg = { promtool: 'prometheus', amtool: 'prometheus-alertmanager' }[cmd] ?? cmd;
  if (r.error) throw new Error(`${cmd} is required (apt-get install ${pkg}): ${r.error.message}`);
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe('alert rules', () => {
  it('promtool check rules passes', () => {
    const r = tool('promtool', ['check', 'rules', 'prometheus/alerts.yml']);
    expect(r.out).toMatch(new RegExp(`SUCCESS: ${rules.length + records.length} rules found`));
    expect(rules.length).toBe(24 + 2 * SLO_DEFINITION.slos.length); // a page and a ticket per SLO
    expect(r.status).toBe(0);
  });

  it("DatanodeExporterDown selects the scrape job the README's scrape configs and the chart name", () => {
    const job = /^up\{job="([^"]+)"\} == 0$/.exec(rules.find((r) => r.alert === 'DatanodeExporterDown')!.expr)?.[1];
    expect(job).toBe('datanode-exporter');
    const names = [...read('README.md').matchAll(/job_name: (\S+)/g)].map((m) => m[1]);
    expect(names.length).toBeGreaterThan(0);
    for (const n of names) expect(n).toBe(job);
    expect((parseYaml(read('helm/datanode-exporter/Chart.yaml')) as { name: string }).name).toBe(job);
  });

  it('promtool test rules passes, with a test for every alert', () => {
    const r = tool('promtool', ['test', 'rules', ...RULE_TESTS]);
    expect(r.out).not.toMatch(/FAILED/);
    expect(r.out.match(/SUCCESS/g)).toHaveLength(RULE_TESTS.length);
    expect(r.status).toBe(0);
    type Tests = {
      tests: { alert_rule_test?: { alertname: string; exp_alerts: unknown[] }[]; promql_expr_test?: { expr: string; exp_samples: unknown[] }[] }[];
    };
    const all = RULE_TESTS.flatMap((f) => (parseYaml(read(f)) as Tests).tests);
    const fired = new Set([
      ...all.flatMap((t) => (t.alert_rule_test ?? []).filter((a) => a.exp_alerts.length > 0).map((a) => a.alertname)),
      // Or read from ALERTS: an expected firing sample of the alert.
      ...all.flatMap((t) =>
        (t.promql_expr_test ?? [])
          .filter((p) => p.exp_samples.length > 0)
          .flatMap((p) => /^ALERTS\{alertname="(\w+)",alertstate="firing"/.exec(p.expr)?.slice(1) ?? []),
      ),
    ]);
    expect([...fired].sort()).toEqual([...new Set(rules.map((r) => r.alert))].sort());
  });

  it('the generated rules and tests match their sources (npm run kit:sync)', () => {
    expect(read('prometheus/fleet.test.yml')).toBe(renderFleetTests());
    expect(read('prometheus/resolve.test.yml')).toBe(renderResolveTests());
    expect(read('prometheus/alerts.yml')).toBe(withSloRules(read('prometheus/alerts.yml')));
    expect(read('prometheus/slo.test.yml')).toBe(renderSloTests());
  });

  it('the SLO rules, alerts and panel come from prometheus/slos.yml: change an objective, and they follow', () => {
    const def = structuredClone(SLO_DEFINITION);
    def.slos[0]!.objective = 0.999;
    const text = JSON.stringify(sloGroups(def));
    expect(text).toContain(' / 0.001'); // the budget left
    expect(text).toContain(' > 0.0144 and '); // 14.4 budgets an hour and 5 minutes
    expect(text).not.toContain(' / 0.005');
    expect(sloPanel(def).description).toContain('99.9%');
    for (const s of SLO_DEFINITION.slos) expect(rules.filter((r) => r.alert === s.alert).map((r) => r.labels.severity)).toEqual(['critical', 'warning']);
  });

  it('every alert has a test of when it fires and when it resolves', () => {
    const resolved = (at: { alert: string; firing: unknown[] }[]) =>
      at.filter((e) => e.firing.length === 0 && at.some((f) => f.alert === e.alert && f.firing.length > 0)).map((e) => e.alert);
    const covered = new Set([...RESOLVE_CASES.map((c) => c.alert), ...resolved(FLEET_EXPECTED), ...SLO_DEFINITION.slos.map((s) => s.alert)]);
    expect([...covered].sort()).toEqual([...new Set(rules.map((r) => r.alert))].sort());
    for (const c of RESOLVE_CASES) {
      const rule = rules.find((r) => r.alert === c.alert)!;
      const forMinutes = rule.for ? Number(/^(\d+)m$/.exec(rule.for)![1]) : 0;
      // Fires its for after the fault starts (the first minute the expression holds), not later.
      expect(c.fires - forMinutes, c.alert).toBeGreaterThanOrEqual(0);
    }
  });

  it('recording rules are named level:metric:operations and count a node reported by several exporters once', () => {
    expect(records.length).toBeGreaterThan(0);
    for (const r of records) {
      expect(r.record).toMatch(/^[a-z_]+:[a-z_]+:[a-z_0-9]+$/);
      // The level names the labels kept: every other label (job, instance) is aggregated away.
      const level = r.record.split(':')[0]!;
      const by = /\b(?:max|min|sum|count|quantile|count_values) by \(([^)]*)\)(?: \("([a-z_]+)")?/.exec(r.expr);
      if (by) expect([...by[1]!.split(', '), ...(by[2] ? [by[2]] : [])].join('_'), r.record).toBe(level);
      else expect(r.expr, r.record).toMatch(new RegExp(`^[a-z_]+:[a-z_]+:[a-z_]+ - on \\(network\\) group_right \\(\\) ${level}:`));
      // Raw per-exporter series are first reduced per node with max, never summed.
      if (/\bvega_[a-z_]+\{?[^:]*\*/.test(r.expr)) expect(r.expr, r.record).toMatch(/^(max|count_values) by/);
    }
    // Cross-node alerts read only recording rules (they give one answer for any number of exporters).
    for (const a of ['VegaNodeBehindFleet', 'VegaChainIdMismatch', 'VegaVersionSkew', 'VegaDatanodeVersionSkew', 'VegaDataDisagreement'])
      expect(rules.find((r) => r.alert === a)!.expr, a).toMatch(/^[a-z_]+:[a-z_]+:[a-z_]+ [=>]/);
  });

  it('the rules and their tests carry the runbook URLs npm run kit:sync writes', () => {
    for (const f of ['prometheus/alerts.yml', ...RULE_TESTS]) expect(withRunbookUrl(read(f)), f).toBe(read(f));
    // The exporter's own page on its default listen address (README: --web.listen-address).
    expect(RUNBOOK_URL).toBe('http://localhost:19308/runbook');
  });

  it('every join matches on job and instance too, so another job or replica watching the same node cannot answer for it', () => {
    const joins = rules.flatMap((r) => [...r.expr.matchAll(/\b(on|ignoring)\s*\(([^)]*)\)/g)].map((m) => [r.alert, m[1], m[2]!.split(/,\s*/)] as const));
    expect(joins.length).toBeGreaterThan(0);
    for (const [alert, kind, labels] of joins) {
      if (kind === 'on') expect(labels, alert).toEqual(expect.arrayContaining(['job', 'instance']));
      else expect(labels, alert).not.toEqual(expect.arrayContaining(['job']));
      if (kind === 'on') expect(labels.includes('target') || labels.includes('network'), alert).toBe(true);
    }
  });

  it.each(rules.map((r) => [r.alert, r] as const))(
    '%s has severity, summary, description, a runbook section with its times to fire and resolve, a de-flapping for and no keep_firing_for',
    (_a, r) => {
      expect(['critical', 'warning', 'info']).toContain(r.labels.severity);
      expect(r.annotations.summary).toBeTruthy();
      expect(r.annotations.description).toBeTruthy();
      // Absolute, so that Alertmanager's notifications link it; from the one URL (npm run kit:sync).
      expect(new URL(r.annotations.runbook_url!).protocol).toMatch(/^https?:$/);
      expect(r.annotations.runbook_url).toBe(runbookUrl(r.alert));
      expect(r.annotations.runbook_url).toBe(`${RUNBOOK_URL}#${r.alert.toLowerCase()}`);
      expect(read('docs/runbook.md')).toContain(`## ${r.alert}\n`);
      const section = read('docs/runbook.md').split(`## ${r.alert}\n`)[1]!.split('\n## ')[0]!;
      expect(section).toMatch(/\*\*Fires:\*\* .+\*\*Resolves:\*\* /s);
      if (r.labels.severity !== 'info') expect(r.for).toMatch(/^\d+m$/);
      expect(r.keep_firing_for).toBeUndefined(); // an alert resolves when its fault clears
    },
  );
});

/**
 * The labels an alert can carry: per `or` branch, the left-hand series' labels (from the metric
 * catalogue; `up` has only scrape labels), the scrape labels and the rule's labels. Valid because
 * no shipped rule aggregates or joins labels in; the guard below fails if one starts to.
 */
const SERIES_LABELS = new Map<string, readonly string[]>([...Object.values(M).map((d) => [d.name, d.labels] as const), ['up', []]]);
function branchLabels(r: Rule): Set<string>[] {
  // A recorded series carries the labels its level names (network_target: network and target), no scrape labels.
  const recorded = /^([a-z_]+):[a-z_]+:[a-z_0-9]+[{ ]/.exec(r.expr);
  if (recorded) return [new Set([...recorded[1]!.split('_'), 'alertname', ...Object.keys(r.labels)])];
  if (
    /\b(sum|min|max|avg|count|count_values|group|topk|bottomk|stddev|stdvar|quantile|label_replace|label_join|group_left|group_right|without|by)\b/.test(r.expr)
  ) {
    throw new Error(`${r.alert}: the label inference does not handle aggregations or joins: ${r.expr}`);
  }
  return r.expr.split(/\s+or\s+/).map((branch) => {
    const metric = branch.match(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)?.find((t) => SERIES_LABELS.has(t));
    if (!metric) throw new Error(`${r.alert}: no catalogued series in "${branch}"`);
    return new Set([...SERIES_LABELS.get(metric)!, 'job', 'instance', 'alertname', ...Object.keys(r.labels)]);
  });
}

type Matcher = { name: string; op: '=' | '!=' | '=~' | '!~'; value: string };
function parseMatcher(m: string): Matcher {
  const x = /^\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"\s*$/.exec(m);
  if (!x) throw new Error(`cannot parse matcher ${m} (write name="value")`);
  return { name: x[1]!, op: x[2] as Matcher['op'], value: x[3]! };
}
/** What a matcher can see of an alert before evaluation: its name and its rule's labels. */
function matches(m: Matcher, r: Rule): boolean {
  const v = m.name === 'alertname' ? r.alert : r.labels[m.name];
  if (v === undefined) throw new Error(`matcher on ${m.name}: only alertname and rule labels can be checked statically`);
  const eq = m.op === '=' || m.op === '!=' ? v === m.value : new RegExp(`^(?:${m.value})$`).test(v);
  return m.op.startsWith('!') ? !eq : eq;
}

describe('Alertmanager example (prometheus/alertmanager.yml)', () => {
  const AM = 'prometheus/alertmanager.yml';
  type Inhibit = { source_matchers: string[]; target_matchers: string[]; equal: string[] };
  const am = parseYaml(read(AM)) as { route: { group_by: string[] }; inhibit_rules: Inhibit[]; receivers: { name: string }[] };

  it('amtool check-config passes', () => {
    const r = tool('amtool', ['check-config', AM]);
    expect(r.out).toMatch(/SUCCESS/);
    expect(r.out).toMatch(/- 2 inhibit rules/);
    expect(r.status).toBe(0);
    expect(am.route.group_by).toEqual(['alertname', 'target', 'network']);
  });

  // Every shipped alert, with its own labels, lands on its severity's receiver; anything else on the default.
  const bySeverity: Record<string, string> = { critical: 'pager', warning: 'team-chat', info: 'team-chat' };
  const cases: [string, string[], string][] = [
    ...rules.map((r): [string, string[], string] => [
      r.alert,
      [`alertname=${r.alert}`, ...Object.entries(r.labels).map(([k, v]) => `${k}=${v}`), 'target=dn1', 'job=datanode-exporter'],
      bySeverity[r.labels.severity!]!,
    ]),
    ['an alert without severity', ['alertname=Watchdog'], 'default-webhook'],
    ['an unknown severity', ['alertname=Other', 'severity=page'], 'default-webhook'],
  ];
  it.each(cases)('amtool config routes test: %s routes to the right receiver', (_n, labels, receiver) => {
    const r = tool('amtool', ['config', 'routes', 'test', `--config.file=${AM}`, `--verify.receivers=${receiver}`, ...labels]);
    expect(r.out.replace(/^Warning: .*\n/gm, '').trim()).toBe(receiver);
    expect(r.status).toBe(0);
  });

  it('inhibition rules name only shipped alerts, joined on labels both sides carry', () => {
    expect(am.inhibit_rules.length).toBeGreaterThan(0);
    for (const rule of am.inhibit_rules) {
      const side = (ms: string[]): Rule[] => {
        const parsed = ms.map(parseMatcher);
        for (const m of parsed.filter((m) => m.name === 'alertname')) {
          // Each literal alternative (VegaA|VegaB, or VegaA) must be a shipped alert's name.
          for (const alt of m.value.split('|').filter((a) => /^[A-Za-z0-9]+$/.test(a)))
            expect(
              rules.map((r) => r.alert),
              `${m.value}`,
            ).toContain(alt);
        }
        const selected = rules.filter((r) => parsed.every((m) => matches(m, r)));
        expect(selected.length, ms.join(', ')).toBeGreaterThan(0);
        return selected;
      };
      const sources = side(rule.source_matchers);
      const targets = side(rule.target_matchers);
      expect(targets.filter((t) => sources.includes(t))).toEqual([]);
      expect(rule.equal.length).toBeGreaterThan(0);
      for (const label of rule.equal) {
        // A source must always carry the label; a target at least on one branch (or it is never muted).
        for (const s of sources)
          expect(
            branchLabels(s).every((b) => b.has(label)),
            `${s.alert} carries ${label}`,
          ).toBe(true);
        for (const t of targets)
          expect(
            branchLabels(t).some((b) => b.has(label)),
            `${t.alert} carries ${label}`,
          ).toBe(true);
      }
    }
  });

  it('a data node down mutes its own collector, lag, staleness, peer and network-history alerts; an exporter down mutes all it reported', () => {
    const muted = (source: string): { alerts: string[]; equal: string[] } => {
      const rule = am.inhibit_rules.find((i) => i.source_matchers.map(parseMatcher).some((m) => m.name === 'alertname' && m.value === source))!;
      const alerts = rules.filter((r) => rule.target_matchers.map(parseMatcher).every((m) => matches(m, r))).map((r) => r.alert);
      return { alerts: [...new Set(alerts)].sort(), equal: rule.equal };
    };
    expect(muted('VegaDataNodeDown')).toEqual({
      alerts: [
        'VegaApiAvailabilityBudgetBurn',
        'VegaApiLatencyBudgetBurn',
        'VegaBlockHeightStalled',
        'VegaBlockTimeStale',
        'VegaCollectorFailing',
        'VegaConsensusPeersLow',
        'VegaConsensusPeersZero',
        'VegaDataNodeLagging',
        'VegaNetworkHistoryDown',
        'VegaNetworkHistoryNoPeers',
        'VegaNodeBehindFleet',
      ],
      equal: ['target'],
    });
    // Cross-node alerts come from recording rules over every exporter: another shard or replica
    // still answers for them, so an exporter down does not mute them.
    expect(muted('DatanodeExporterDown')).toEqual({
      alerts: rules
        .filter((r) => !/^[a-z_]+:/.test(r.expr))
        .map((r) => r.alert)
        .filter((a) => a !== 'DatanodeExporterDown')
        .sort(),
      equal: ['job', 'instance'],
    });
  });
});

describe('dashboards', () => {
  it('grafana/*.json are generated from scripts/dashboards.ts (npm run dashboards)', () => {
    for (const d of DASHBOARDS) expect(JSON.parse(read(dashboardFile(d)))).toEqual(renderDashboard(d));
    expect(
      readdirSync('grafana')
        .filter((f) => f.endsWith('.json'))
        .sort(),
    ).toEqual(DASHBOARDS.map((d) => `${d.uid}.json`).sort());
  });

  it.each(DASHBOARDS.map((d) => [d.uid, d] as const))('%s: stable uid, templated data source, variables, units and descriptions', (_u, d) => {
    const json = renderDashboard(d) as {
      uid: string;
      templating: { list: { name: string }[] };
      panels: {
        description: string;
        datasource: { uid: string };
        fieldConfig: { defaults: { unit: string } };
        targets: { expr: string; datasource: { uid: string } }[];
      }[];
    };
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
  it("the chart's rules and dashboards are the shipped files themselves, through symbolic links (Helm follows them)", () => {
    expect(readlinkSync(`${chart}/files/alerts.yml`)).toBe('../../../prometheus/alerts.yml');
    expect(readlinkSync(`${chart}/files/dashboards`)).toBe('../../../grafana');
    expect(read(`${chart}/files/alerts.yml`)).toBe(read('prometheus/alerts.yml'));
    expect(readdirSync(`${chart}/files`).sort()).toEqual(['alerts.yml', 'dashboards']);
    // The chart's template globs *.json: grafana/ holds the dashboards only.
    expect(readdirSync('grafana').filter((f) => !f.endsWith('.json'))).toEqual([]);
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
      { ...values, prometheusRule: { runbookURL: 'docs/runbook' } },
      { ...values, prometheusRule: { runbookURL: 'http://x/runbook#a' } },
      { ...values, prometheusRule: { runbookBaseUrl: 'http://x' } },
    ])
      expect(validate(bad)).toBe(false);
  });

  it('templates cover the promised objects, hardened, with probes on /healthz and /readyz', () => {
    const t = (f: string): string => read(`${chart}/templates/${f}`);
    expect(t('servicemonitor.yaml')).toContain('kind: ServiceMonitor');
    // job = the chart name whatever the release or nameOverride: the job DatanodeExporterDown selects.
    expect(t('_helpers.tpl')).toMatch(/^ {2}- targetLabel: job\n {4}replacement: \{\{ \.root\.Chart\.Name \}\}$/m);
    expect(t('podmonitor.yaml')).toContain('include "dne.scrapeEndpoint"');
    expect(t('servicemonitor.yaml')).toContain('include "dne.scrapeEndpoint"');
    expect(t('prometheusrule.yaml')).toContain('.Files.Get "files/alerts.yml"');
    expect(t('dashboards-configmap.yaml')).toContain('files/dashboards/*.json');
    const values = parseYaml(read(`${chart}/values.yaml`)) as {
      livenessProbe: { httpGet: { path: string } };
      readinessProbe: { httpGet: { path: string } };
      securityContext: Record<string, unknown>;
      dashboards: { labels: Record<string, string> };
    };
    expect(values.livenessProbe.httpGet.path).toBe('/healthz');
    expect(values.readinessProbe.httpGet.path).toBe('/readyz');
    expect(values.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
    expect(values.dashboards.labels).toHaveProperty('grafana_dashboard');
    expect(t('workload.yaml')).toContain('secretName: {{ .Values.webConfig.existingSecret }}');
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
  it('multi-stage, current LTS, production dependencies only, non-root, the bin as the entry point, a health check', () => {
    expect(df.match(/^FROM /gm)?.length).toBeGreaterThanOrEqual(2);
    expect(Number(/node:(\d+)/.exec(df)?.[1])).toBeGreaterThanOrEqual(22);
    expect(df).toMatch(/npm prune --omit=dev|npm ci --omit=dev/);
    const final = df.slice(df.lastIndexOf('\nFROM '));
    expect(final).toMatch(/^USER node$/m);
    expect(final).toMatch(/^EXPOSE 19308 19309$/m);
    expect(final).toMatch(/^HEALTHCHECK /m);
    const entry = /^ENTRYPOINT (\[.*\])$/m.exec(final)?.[1];
    expect(JSON.parse(entry!)).toEqual(['/app/dist/exporter/cli.js']); // exec form: its shebang's env execs node, no npm or shell
    expect(final).not.toMatch(/^(RUN|CMD|ENTRYPOINT).*\bnpm (start|run)\b/m);
  });

  it("the health check follows the exporter's own arguments and environment; no image setting hides the config file's", () => {
    const final = df.slice(df.lastIndexOf('\nFROM '));
    expect(final).toMatch(/^ {2}CMD \["node", "dist\/exporter\/cli\.js", "healthcheck", "--pid=1"\]$/m);
    // The image's listen addresses are defaults below the file, never settings (variables or flags) above it.
    expect(final).toMatch(/^ENV DATANODE_EXPORTER_WEB_LISTEN_ADDRESS_DEFAULT=:19308$/m);
    expect(final).toMatch(/^ENV DATANODE_EXPORTER_WEB_HEALTH_LISTEN_ADDRESS_DEFAULT=:19309$/m);
    expect(final).not.toMatch(/^ENV DATANODE_EXPORTER_(?!WEB_(HEALTH_)?LISTEN_ADDRESS_DEFAULT=)/m);
    expect(final).not.toMatch(/^CMD /m);
    // The runbook every alert links is served from the image.
    expect(final).toMatch(/^COPY --chown=root:root docs\/runbook\.md \.\/docs\/$/m);
    expect(read('.dockerignore')).toMatch(/^!docs\/runbook\.md$/m);
  });

  it("OCI labels: the package's version and license, the revision from the REVISION build argument", () => {
    const pkg = JSON.parse(read('package.json')) as { name: string; version: string; license: string };
    const final = df.slice(df.lastIndexOf('\nFROM '));
    const labels = Object.fromEntries([...final.matchAll(/org\.opencontainers\.image\.(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
    expect(labels).toEqual({
      title: pkg.name,
      description: expect.any(String) as string,
      version: pkg.version,
      revision: '${REVISION}',
      source: '${SOURCE}',
      licenses: pkg.license,
    });
    expect(final).toMatch(/^ARG REVISION=unknown$/m);
    // The build stage hands it to scripts/build-info.mjs, after npm ci so a new revision keeps that layer.
    const build = df.slice(0, df.lastIndexOf('\nFROM '));
    expect(build.indexOf('ARG REVISION=unknown')).toBeGreaterThan(build.indexOf('npm ci'));
    expect(build).toMatch(/^RUN BUILD_REVISION="\$REVISION" npm run build /m);
  });

  it('builds without a registry for the frontend, and the CA bundle is a build secret, never copied', () => {
    expect(df).not.toMatch(/^# syntax=/m);
    expect(df).toMatch(/^RUN --mount=type=secret,id=ca \\$/m);
    expect(df).not.toMatch(/^(COPY|ADD) .*(\.crt|\.pem|ca-certificates)/m);
    expect(df).not.toMatch(/^ENV NODE_EXTRA_CA_CERTS/m);
  });
});

describe('the npm package (npm run test:image packs and installs it)', () => {
  const pkg = JSON.parse(read('package.json')) as {
    name: string;
    private?: boolean;
    license: string;
    files: string[];
    scripts: Record<string, string>;
    dependencies: Record<string, string>;
  };
  it('publishable: not private, MIT with its LICENSE naming the project, the changelog shipped', () => {
    expect(pkg.private).toBeUndefined();
    expect(pkg.license).toBe('MIT');
    expect(read('LICENSE')).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} datanode-exporter\n/);
    expect(pkg.files).toContain('CHANGELOG.md');
  });

  it('dist/ is built when packed (prepack) and before npm start, not on install (no prepare)', () => {
    expect(pkg.scripts.prepare).toBeUndefined();
    expect(pkg.scripts.prepack).toBe('npm run build');
    expect(pkg.scripts.prestart).toBe('npm run build');
    // The exporter only: the simulator and the demo run from source (tsx).
    const build = JSON.parse(read('tsconfig.build.json')) as { include: string[] };
    expect(build.include).toEqual(['src/exporter', 'src/shared']);
  });
});

describe('launch settings (the shebang of src/exporter/cli.ts, written nowhere else)', () => {
  const { env, flags } = launchSettings();
  it('npm start and the image run the bin itself, so its shebang applies; nothing restates the settings', () => {
    expect(flags).toEqual(['--max-semi-space-size=1', '--heap-growing-percent=50', '--optimize-for-size']);
    expect(env).toEqual({ MALLOC_MMAP_THRESHOLD_: '32768' });
    const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string>; bin: Record<string, string> };
    expect(pkg.scripts.start).toBe('dist/exporter/cli.js');
    expect(pkg.bin['datanode-exporter']).toBe('dist/exporter/cli.js');
    expect(pkg.scripts.build).toMatch(/chmod \+x dist\/exporter\/cli\.js/);
    const df = read('Dockerfile');
    const final = df.slice(df.lastIndexOf('\nFROM '));
    expect(JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(final)![1]!)).toEqual(['/app/dist/exporter/cli.js']);
    for (const f of [
      'Dockerfile',
      'package.json',
      'README.md',
      'docs/fleet.md',
      ...readdirSync('helm/datanode-exporter/templates').map((t) => `helm/datanode-exporter/templates/${t}`),
    ]) {
      for (const setting of [...flags, ...Object.keys(env)]) expect(read(f), `${f} restates ${setting}`).not.toContain(`${setting}`);
    }
  });

  it(`this Node (${process.version}) takes the launch flags without a word`, () => {
    // npm run test:image-node runs this file again on the image's Node major.
    const r = spawnSync(process.execPath, [...flags, '-e', 'process.exit(0)'], { encoding: 'utf8', env: { ...process.env, ...env } });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});

describe('YAML lint', () => {
  it('yamllint passes on the shipped YAML (templates excluded: they are not YAML until rendered)', () => {
    const files = [
      'prometheus/alerts.yml',
      'prometheus/alerts.test.yml',
      'prometheus/alertmanager.yml',
      'prometheus/slos.yml',
      'helm/datanode-exporter/Chart.yaml',
      'helm/datanode-exporter/values.yaml',
    ];
    const r = tool('yamllint', ['-d', '{extends: relaxed, rules: {line-length: {max: 220}}}', ...files]);
    expect(r.out).toBe('');
    expect(r.status).toBe(0);
  });
});

describe('the tree and its description', () => {
  const layers = readdirSync('src/exporter', { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);
  it.each(layers)('src/exporter/%s/ is described in docs/development.md and docs/architecture.md, and has its tests', (layer) => {
    expect(read('docs/development.md')).toContain(`\`${layer}/\``);
    expect(read('docs/architecture.md')).toContain(`${layer}/`);
    expect(readdirSync(`test/exporter/${layer}`).some((f) => f.endsWith('.test.ts'))).toBe(true);
  });

  it('nothing under scripts/ imports from test/', () => {
    for (const f of readdirSync('scripts').filter((n) => n.endsWith('.ts'))) expect(read(`scripts/${f}`), f).not.toMatch(/from '\.\.\/test\//);
  });
});

/** Every command line in the README's sh blocks: continuation lines joined, comments dropped. */
function readmeCommands(readme: string): string[] {
  return [...readme.matchAll(/```sh\n([\s\S]*?)```/g)]
    .flatMap((m) => m[1]!.replace(/\\\n\s*/g, ' ').split('\n'))
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter((l) => l !== '');
}

describe('the README', () => {
  const readme = read('README.md');

  it('runs every command it shows somewhere in the tests or CI', () => {
    // [command, file that runs it, what in that file runs it]. CI runs the servers on ports the
    // system picks (port 0), not the README's 19308 and 3008: the machine may be shared.
    const runBy: [RegExp, string, string][] = [
      [/^npm ci && npm run demo$/, 'scripts/test-fresh.sh', "'npm ci && npm run demo -- --port 0'"],
      [/^npm test$/, 'scripts/test-fresh.sh', 'npm test'],
      [/^npm ci$/, 'scripts/test-fresh.sh', "'npm ci && npm run demo -- --port 0'"],
      [
        /^npm start -- --datanode\.url http:\/\/127\.0\.0\.1:3008 --web\.listen-address :19308$/,
        'scripts/test-fresh.sh',
        '"npm start -- --datanode.url $node_url --web.listen-address 127.0.0.1:0"',
      ],
      [/^bash scripts\/image\/build-base\.sh$/, 'test/image/docker.image.test.ts', "['scripts/image/build-base.sh']"],
      [/^DOCKER_BUILDKIT=1 docker build --build-arg REVISION=\$\(git rev-parse HEAD\) -t \S+ \.$/, 'test/image/docker.image.test.ts', 'readmeBuild[0]!'],
      [/^npm pack$/, 'test/image/package.image.test.ts', "'pack'"],
      [/^npm install --prefix \/opt\/datanode-exporter \.\/datanode-exporter-[\d.]+\.tgz$/, 'test/image/package.image.test.ts', "'--prefix'"],
      [/^\/opt\/datanode-exporter\/node_modules\/\.bin\/datanode-exporter --version$/, 'test/image/package.image.test.ts', "'--version'"],
      [/^docker run --rm -p 19308:19308 --read-only \S+ --datanode\.url=\S+$/, 'test/image/docker.image.test.ts', "'--read-only'"],
      [/^helm install dne helm\/datanode-exporter /, 'test/kit/chart.test.ts', "the README's helm install"],
    ];
    // The systemd installation needs a machine with systemd as init, which CI is not; the unit file
    // itself is checked below.
    const notRun = /^sudo (useradd|npm install --prefix|install|cp|systemctl) /;
    const commands = readmeCommands(readme);
    expect(commands.length).toBeGreaterThan(5);
    for (const c of commands) {
      if (notRun.test(c)) continue;
      const by = runBy.find(([re]) => re.test(c));
      expect(by, `no test or CI step runs the README's \`${c}\``).toBeDefined();
      expect(read(by![1]), `${by![1]} runs \`${c}\``).toContain(by![2]);
    }
    expect(read('.ci/run')).toContain('npm run test:fresh');
    expect(read('.ci/run')).toContain('npm run test:image');
  });

  it('the quick start is the two commands test:fresh runs', () => {
    const quick = readmeCommands(readme.slice(readme.indexOf('## Quick start'), readme.indexOf('\n## ', readme.indexOf('## Quick start') + 1)));
    expect(quick).toEqual(['npm ci && npm run demo', 'npm test']);
  });

  it('the config file examples are accepted by the exporter', () => {
    const section = readme.slice(readme.indexOf('## Config file'));
    const blocks = [...section.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks).toHaveLength(2);
    const dir = mkdtempSync(join(tmpdir(), 'dne-readme-config-'));
    try {
      const file = join(dir, 'exporter.yaml');
      writeFileSync(file, blocks.join(''));
      const config = loadConfig(parseCli(['--config.file', file]), {});
      expect(config.targets.map((t) => t.name)).toEqual(['dn1']);
      expect(config.shard).toBe('0/3');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the config reference's keys and defaults are the schema's", () => {
    const config = loadConfig(parseCli(['--datanode.url', 'http://127.0.0.1:3008']), {}) as unknown as Record<string, unknown>;
    const at = (path: string): unknown => path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], config);
    const rows = [...readme.matchAll(/^\| `([a-z_]+\.[a-z_.]+)`((?:, `?[a-z_]+`?)*) \| ([^|]+) \|/gm)];
    expect(rows.length).toBeGreaterThan(10);
    for (const [, first, more, defaults] of rows) {
      const parent = first!.slice(0, first!.lastIndexOf('.') + 1);
      const keys = [
        first!,
        ...more!
          .split(',')
          .map((k) => k.replace(/`/g, '').trim())
          .filter(Boolean)
          .map((k) => parent + k),
      ];
      const shown = defaults!.trim().replace(/`/g, '').split(/,\s*/);
      keys.forEach((k, i) => {
        const v = at(k);
        expect(v, k).toBeDefined();
        const d = /^(\d+)(s|m|h)$/.exec(shown[i] ?? '');
        const want = d ? String(Number(d[1]) * { s: 1000, m: 60_000, h: 3_600_000 }[d[2] as 's' | 'm' | 'h']) : shown[i];
        if (want !== undefined && (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')) expect(String(v), k).toBe(want);
      });
    }
  });

  it('the systemd unit is valid (systemd-analyze verify) and starts the installed package bin with flags the exporter takes', () => {
    const unit = read('deploy/systemd/datanode-exporter.service');
    const exec = /^ExecStart=(\S+) (.*)$/m.exec(unit);
    // Where `npm install --prefix /opt/datanode-exporter <tarball>` puts the package's bin.
    const pkg = JSON.parse(read('package.json')) as { bin: Record<string, string> };
    expect(Object.keys(pkg.bin)).toEqual(['datanode-exporter']);
    expect(exec?.[1]).toBe('/opt/datanode-exporter/node_modules/.bin/datanode-exporter');
    expect(readme).toContain('sudo npm install --prefix /opt/datanode-exporter ./datanode-exporter-');
    const cli = parseCli(exec![2]!.split(' '));
    expect(cli).toMatchObject({ configFile: '/etc/datanode-exporter/config.yaml', overrides: { listenAddress: ':19308' } });
    expect(readme).toContain('/etc/datanode-exporter/config.yaml');
    // systemd-analyze requires ExecStart's program to exist: a stand-in at the same place under a temp prefix.
    const dir = mkdtempSync(join(tmpdir(), 'dne-unit-'));
    try {
      mkdirSync(join(dir, 'node_modules/.bin'), { recursive: true });
      writeFileSync(join(dir, 'node_modules/.bin/datanode-exporter'), '#!/bin/sh\n', { mode: 0o755 });
      const file = join(dir, 'datanode-exporter.service');
      writeFileSync(file, unit.replaceAll('/opt/datanode-exporter', dir));
      const r = tool('systemd-analyze', ['verify', file]);
      expect(r.out).toBe('');
      expect(r.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
