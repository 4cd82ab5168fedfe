/**
 * The Helm chart rendered with Helm's engine (tools/chart-render: Go text/template + sprig + Helm's
 * own functions; there is no Helm binary here) for the default values and a matrix of overrides.
 * Every rendering must be YAML and hang together the way the cluster needs it: probe schemes that
 * match the web config, selectors that select, mounts that have volumes, rules promtool accepts and
 * the shipped dashboards.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, parseDocument, stringify } from 'yaml';

const chart = 'helm/datanode-exporter';
const read = (p: string): string => readFileSync(p, 'utf8');

type Labels = Record<string, string>;
type Probe = { httpGet?: { path: string; port: string | number; scheme?: string } };
type Container = {
  name: string;
  image?: string;
  args: string[];
  env?: { name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }[];
  ports?: { name: string; containerPort: number }[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe & { failureThreshold?: number };
  resources: unknown;
  securityContext: unknown;
  volumeMounts?: { name: string; mountPath: string }[];
};
type Volume = { name: string; configMap?: { name: string }; secret?: { secretName: string } };
type Obj = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Labels; annotations?: Labels };
  data?: Record<string, string>;
  automountServiceAccountToken?: boolean;
  spec?: {
    replicas?: number;
    revisionHistoryLimit?: number;
    strategy?: unknown;
    updateStrategy?: unknown;
    namespaceSelector?: { matchNames: string[] };
    targetLabels?: string[];
    podTargetLabels?: string[];
    serviceName?: string;
    clusterIP?: string;
    selector?: { matchLabels?: Labels } & Labels;
    ports?: { name: string; port?: number; targetPort: string | number; nodePort?: number }[];
    template?: {
      metadata: { labels: Labels; annotations?: Labels };
      spec: {
        hostNetwork?: boolean;
        dnsPolicy?: string;
        imagePullSecrets?: { name: string }[];
        initContainers?: { name: string }[];
        securityContext: unknown;
        containers: Container[];
        volumes?: Volume[];
        serviceAccountName?: string;
        automountServiceAccountToken?: boolean;
        priorityClassName?: string;
        topologySpreadConstraints?: { topologyKey: string; labelSelector?: { matchLabels?: Labels } }[];
      };
    };
    endpoints?: Endpoint[];
    podMetricsEndpoints?: Endpoint[];
    maxUnavailable?: number | string;
    groups?: { rules: { alert?: string; annotations?: Labels }[] }[];
  };
};
type Endpoint = {
  port: string;
  path: string;
  scheme: string;
  tlsConfig?: unknown;
  basicAuth?: unknown;
  honorLabels?: boolean;
  relabelings?: { targetLabel?: string; replacement?: string }[];
  metricRelabelings?: unknown[];
};
type Doc = { source: string; obj: Obj };
type Values = {
  existingConfigMap: string;
  existingConfigSecret: string;
  extraVolumes: { name: string }[];
  serviceAccount: { create: boolean; name: string; automount: boolean };
  webConfig: { existingSecret: string; key: string; tls?: boolean };
  serviceMonitor: { scheme?: string };
  podMonitor: { scheme?: string };
  prometheusRule: { runbookURL: string; disabled: Record<string, boolean> };
  dashboards: { labels: Labels };
  resources: unknown;
  podSecurityContext: unknown;
  securityContext: unknown;
  extraArgs: string[];
  extraEnv: unknown[];
  shards: number;
  telemetryPath: string;
  healthPort: number;
};
type Rendered = { docs: Doc[]; values: Values; of: (kind: string) => Obj[]; one: (kind: string) => Obj };

/** The chart's one workload: a Deployment, or with shards > 1 a StatefulSet. */
const workload = (m: Rendered): Obj => m.one(m.values.shards > 1 ? 'StatefulSet' : 'Deployment');

let work = '';
let bin = '';

function run(cmd: string, args: string[]): { status: number | null; out: string; stdout: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.error) throw new Error(`${cmd} is required: ${r.error.message}`);
  return { status: r.status, out: `${r.stdout}${r.stderr}`, stdout: r.stdout };
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'dne-chart-'));
  bin = join(work, 'chart-render');
  // The Go build cache outlives the run, so only the first build on a machine compiles sprig.
  const r = run('bash', ['tools/chart-render/build.sh', bin, join(tmpdir(), 'dne-chart-render', 'go-build')]);
  if (r.status !== 0) {
    throw new Error(
      `building tools/chart-render failed (needs apt-get install golang-go golang-github-masterminds-sprig-dev golang-k8s-sigs-yaml-dev golang-github-gobwas-glob-dev):\n${r.out}`,
    );
  }
}, 300_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/**
 * Renders the chart with `overrides` deep-merged over values.yaml; every document must be YAML. As
 * Helm does before rendering, the merged values are validated against values.schema.json (draft-07),
 * so a value the schema refuses fails here as it fails `helm install`.
 */
function render(name: string, overrides: object, kubeVersion = 'v1.30.0'): Rendered {
  const file = join(work, `${name.replace(/\W+/g, '-')}.yaml`);
  writeFileSync(file, stringify(overrides));
  const shown = run(bin, ['-show-values', '-f', file, chart]);
  expect(shown.status, shown.out).toBe(0);
  const values = JSON.parse(shown.stdout) as Values;
  if (!validateValues(values)) throw new Error(`values don't validate against values.schema.json: ${JSON.stringify(validateValues.errors)}`);
  const r = run(bin, ['-kube-version', kubeVersion, '-f', file, chart]);
  if (r.status !== 0) throw new Error(`chart-render failed for ${name}: ${r.out}`);
  const docs = r.stdout
    .split(/^---\n/m)
    .filter((s) => s.trim() !== '')
    .map((text) => {
      const source = /^# Source: (.+)\n/.exec(text)?.[1];
      if (!source) throw new Error(`document without a # Source header: ${text.slice(0, 200)}`);
      const doc = parseDocument(text, { uniqueKeys: true });
      if (doc.errors.length > 0) throw new Error(`${source} is not YAML: ${doc.errors.map((e) => e.message).join('; ')}`);
      return { source, obj: doc.toJS() as Obj };
    });
  const of = (kind: string): Obj[] => docs.filter((d) => d.obj.kind === kind).map((d) => d.obj);
  const one = (kind: string): Obj => {
    const found = of(kind);
    expect(
      found.map((o) => o.kind),
      `exactly one ${kind}`,
    ).toEqual([kind]);
    return found[0]!;
  };
  return { docs, values, of, one };
}

const subset = (small: Labels | undefined, big: Labels | undefined, what: string): void => {
  expect(Object.keys(small ?? {}).length, `${what}: empty selector`).toBeGreaterThan(0);
  for (const [k, v] of Object.entries(small ?? {})) expect(big?.[k], `${what}: ${k}`).toBe(v);
};

/** The scheme the pod serves: HTTPS exactly when a web config from a Secret enables TLS. */
const podScheme = (v: Values): 'HTTP' | 'HTTPS' => (v.webConfig.existingSecret && v.webConfig.tls !== false ? 'HTTPS' : 'HTTP');
/** The health listener serves plain HTTP whatever the web config; the service port as the pod serves. */
const probeScheme = (v: Values, port: string | number): 'HTTP' | 'HTTPS' => (port === 'health' ? 'HTTP' : podScheme(v));

const ruleFile = parseYaml(read('prometheus/alerts.yml')) as { groups: { rules: { alert: string }[] }[] };
const ruleCount = ruleFile.groups.flatMap((g) => g.rules).length;
/** The job DatanodeExporterDown selects, read from the shipped rules. */
const jobInRules = /up\{job="([^"]+)"\}/.exec(read('prometheus/alerts.yml'))![1]!;
const dashboardFiles = readdirSync('grafana')
  .filter((f) => f.endsWith('.json'))
  .sort();
// Ajv's default dialect is draft-07, the schema's $schema.
const validateValues = new Ajv({ allErrors: true, strict: false }).compile(JSON.parse(read(`${chart}/values.schema.json`)) as object);

/** The structural checks every rendering must pass. */
function check(m: Rendered): void {
  const { docs, values: v } = m;
  expect(validateValues(v), JSON.stringify(validateValues.errors)).toBe(true);
  for (const { source, obj } of docs) {
    expect(obj.apiVersion, source).toMatch(/^[a-z0-9.]*\/?v\d\w*$/);
    expect(obj.kind, source).toMatch(/^[A-Z]\w+$/);
    expect(obj.metadata.name, source).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
  }
  const deployment = workload(m);
  const pod = deployment.spec!.template!;
  subset(deployment.spec!.selector!.matchLabels, pod.metadata.labels, `${deployment.kind} selector vs pod labels`);
  expect(
    kinds(m).filter((k) => k === 'Deployment' || k === 'StatefulSet'),
    'one workload',
  ).toEqual([deployment.kind]);
  const volumes = new Map((pod.spec.volumes ?? []).map((vol) => [vol.name, vol]));
  const configMaps = m.of('ConfigMap').map((c) => c.metadata.name);
  // The exporter's container (extraContainers are the operator's own).
  for (const c of pod.spec.containers.filter((x) => x.name === 'exporter')) {
    const portNames = (c.ports ?? []).map((p) => p.name);
    for (const probe of ['livenessProbe', 'readinessProbe'] as const) {
      const get = c[probe]?.httpGet;
      expect(get, `${c.name}.${probe}.httpGet`).toBeDefined();
      expect(get!.scheme ?? 'HTTP', `${c.name}.${probe}.httpGet.scheme (Kubernetes defaults to HTTP)`).toBe(probeScheme(v, get!.port));
      expect(portNames, `${c.name}.${probe} port`).toContain(get!.port);
    }
    const startup = c.startupProbe?.httpGet;
    if (startup) expect(startup.scheme, `${c.name}.startupProbe.httpGet.scheme`).toBe(probeScheme(v, startup.port));
    // The health listener the probes ask, where the exporter is told to open it.
    expect(c.args).toContain(`--web.health-listen-address=:${v.healthPort}`);
    expect(c.ports).toContainEqual(expect.objectContaining({ name: 'health', containerPort: v.healthPort }));
    for (const mount of c.volumeMounts ?? []) expect(volumes.has(mount.name), `volume for mount ${mount.name}`).toBe(true);
    expect(c.args).toContain(`--web.telemetry-path=${v.telemetryPath}`);
  }
  const extra = new Set((v.extraVolumes ?? []).map((x) => x.name));
  const secrets = m.of('Secret').map((x) => x.metadata.name);
  for (const vol of volumes.values()) {
    if (extra.has(vol.name)) continue; // the operator's own, passed through
    if (vol.configMap) expect(v.existingConfigMap ? [v.existingConfigMap] : configMaps, `config map ${vol.configMap.name}`).toContain(vol.configMap.name);
    if (vol.secret)
      expect([v.webConfig.existingSecret, v.existingConfigSecret, ...secrets], `secret ${vol.secret.secretName}`).toContain(vol.secret.secretName);
  }
  // The pod runs as the ServiceAccount the chart renders (or names), with a token only when asked for.
  const accounts = m.of('ServiceAccount');
  expect(accounts).toHaveLength(v.serviceAccount.create ? 1 : 0);
  expect(pod.spec.serviceAccountName).toBe(v.serviceAccount.create ? accounts[0]!.metadata.name : v.serviceAccount.name || 'default');
  expect(pod.spec.automountServiceAccountToken).toBe(v.serviceAccount.automount);
  for (const pdb of m.of('PodDisruptionBudget')) subset(pdb.spec!.selector!.matchLabels, pod.metadata.labels, 'PodDisruptionBudget selector vs pod labels');
  for (const pm of m.of('PodMonitor')) {
    subset(pm.spec!.selector!.matchLabels, pod.metadata.labels, 'PodMonitor selector vs pod labels');
    for (const ep of pm.spec!.podMetricsEndpoints!) {
      expect(
        pod.spec.containers.flatMap((c) => (c.ports ?? []).map((p) => p.name)),
        'PodMonitor port',
      ).toContain(ep.port);
      expect(ep.path, 'PodMonitor path').toBe(v.telemetryPath);
      expect(ep.scheme, 'PodMonitor scheme').toBe(v.podMonitor.scheme || podScheme(v).toLowerCase());
    }
  }
  // Whatever the names: the scrape job is the one the alerts select.
  for (const ep of [...m.of('ServiceMonitor').flatMap((x) => x.spec!.endpoints!), ...m.of('PodMonitor').flatMap((x) => x.spec!.podMetricsEndpoints!)]) {
    expect(ep.relabelings?.[0]).toEqual({ targetLabel: 'job', replacement: jobInRules });
  }
  const service = m.one('Service');
  if (deployment.kind === 'StatefulSet') {
    expect(deployment.spec!.replicas).toBe(v.shards);
    expect(deployment.spec!.serviceName, 'the governing Service').toBe(service.metadata.name);
    expect(service.spec!.clusterIP, 'a headless Service: its endpoints are the pods').toBe('None');
  }
  subset(service.spec!.selector, pod.metadata.labels, 'Service selector vs pod labels');
  const containerPorts = pod.spec.containers.flatMap((c) => (c.ports ?? []).map((p) => p.name));
  for (const p of service.spec!.ports!) expect(containerPorts, `Service targetPort ${p.targetPort}`).toContain(p.targetPort);

  // Wherever a monitor is, it selects the release's pods in the release's namespace.
  for (const mon of [...m.of('ServiceMonitor'), ...m.of('PodMonitor')]) expect(mon.spec!.namespaceSelector, mon.kind).toEqual({ matchNames: ['default'] });
  for (const sm of m.of('ServiceMonitor')) {
    subset(sm.spec!.selector!.matchLabels, service.metadata.labels, 'ServiceMonitor selector vs Service labels');
    for (const ep of sm.spec!.endpoints!) {
      expect(
        service.spec!.ports!.map((p) => p.name),
        'ServiceMonitor port',
      ).toContain(ep.port);
      expect(ep.scheme, 'ServiceMonitor scheme').toBe(v.serviceMonitor.scheme || podScheme(v).toLowerCase());
      expect(ep.path, 'ServiceMonitor path: where the pod serves metrics').toBe(v.telemetryPath);
    }
  }
  for (const pr of m.of('PrometheusRule')) {
    const file = join(work, `rules-${pr.metadata.name}.yml`);
    writeFileSync(file, stringify({ groups: pr.spec!.groups }));
    const r = run('promtool', ['check', 'rules', file]);
    const off = Object.values(v.prometheusRule.disabled ?? {}).filter(Boolean).length;
    expect(r.out).toContain(`SUCCESS: ${ruleCount - off} rules found`);
    expect(r.status).toBe(0);
    // The value's page, or by default the exporter's own /runbook through this release's Service.
    const page = v.prometheusRule.runbookURL || `${podScheme(v).toLowerCase()}://${service.metadata.name}.default.svc:${service.spec!.ports![0]!.port}/runbook`;
    for (const rule of pr.spec!.groups!.flatMap((g) => g.rules).filter((r) => r.alert)) {
      expect(rule.annotations?.runbook_url).toBe(`${page}#${rule.alert!.toLowerCase()}`);
    }
  }
  for (const cm of m.of('ConfigMap').filter((c) => c.metadata.name.endsWith('-dashboards'))) {
    subset(v.dashboards.labels, cm.metadata.labels, 'dashboard ConfigMap labels');
    expect(Object.keys(cm.data ?? {}).sort()).toEqual(dashboardFiles);
    for (const f of dashboardFiles) expect(JSON.parse(cm.data![f]!), f).toEqual(JSON.parse(read(`grafana/${f}`)));
  }
}

const container = (m: Rendered): Container => workload(m).spec!.template!.spec.containers[0]!;
const probeSchemes = (m: Rendered): (string | undefined)[] => [container(m).livenessProbe?.httpGet?.scheme, container(m).readinessProbe?.httpGet?.scheme];
const kinds = (m: Rendered): string[] => m.docs.map((d) => d.obj.kind);
const web = { existingSecret: 'dne-web' };
const HEADER_SECRET = 'CANARY-chart-api-key-5c1e';

/**
 * The shard rule as docs/fleet.md states it, written here rather than imported: a target belongs to
 * shard i of n when the 32-bit FNV-1a hash of its name's UTF-8 bytes, modulo n, is i.
 */
function fnv1a32(s: string): number {
  let h = 0x811c9dc5;
  for (const b of new TextEncoder().encode(s)) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h;
}

/** Pod `ordinal`'s arguments as Kubernetes runs them: env from values and labels, $(VAR) expanded. */
function podArgs(m: Rendered, ordinal: number): string[] {
  const pod = workload(m).spec!.template!;
  const labels: Labels = { ...pod.metadata.labels, 'apps.kubernetes.io/pod-index': String(ordinal) };
  const env = new Map<string, string>();
  for (const e of container(m).env ?? []) {
    const field = /^metadata\.labels\['(.+)'\]$/.exec(e.valueFrom?.fieldRef?.fieldPath ?? '')?.[1];
    const value = field !== undefined ? labels[field] : e.value;
    if (value !== undefined) env.set(e.name, value);
  }
  return container(m).args.map((a) => a.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (ref, name: string) => env.get(name) ?? ref));
}

const fleet = Array.from({ length: 24 }, (_, i) => ({ name: `dn-${i}.example`, url: `http://10.0.0.${i + 1}:3008` }));

// [name, overrides, what this case must show beyond the common checks]
const matrix: [string, object, (m: Rendered) => void, string?][] = [
  [
    'default values',
    {},
    (m) => {
      expect(kinds(m)).toEqual(['ServiceAccount', 'ConfigMap', 'Service', 'Deployment']); // Helm's install order
      expect(probeSchemes(m)).toEqual(['HTTP', 'HTTP']);
      expect(container(m).args.some((a) => a.startsWith('--web.config.file'))).toBe(false);
    },
  ],
  [
    'web config serving TLS',
    { webConfig: web },
    (m) => {
      // The probes ask the health listener (plain HTTP); metrics are served over TLS.
      expect(probeSchemes(m)).toEqual(['HTTP', 'HTTP']);
      expect(container(m).livenessProbe!.httpGet!.port).toBe('health');
      expect(container(m).args).toContain('--web.config.file=/etc/datanode-exporter/web/web-config.yml');
      expect(workload(m).spec!.template!.spec.volumes).toContainEqual({ name: 'web-config', secret: { secretName: 'dne-web' } });
    },
  ],
  [
    'web config with basic auth only',
    { webConfig: { ...web, tls: false } },
    (m) => {
      expect(probeSchemes(m)).toEqual(['HTTP', 'HTTP']);
      expect(container(m).args).toContain('--web.config.file=/etc/datanode-exporter/web/web-config.yml');
    },
  ],
  [
    'ServiceMonitor',
    { serviceMonitor: { enabled: true } },
    (m) => {
      expect(m.one('ServiceMonitor').spec!.endpoints![0]!.scheme).toBe('http');
      expect(m.one('ServiceMonitor').spec!.endpoints![0]!.path).toBe('/metrics');
    },
  ],
  [
    'ServiceMonitor on another telemetry path',
    { serviceMonitor: { enabled: true }, telemetryPath: '/exporter/metrics' },
    (m) => {
      expect(m.one('ServiceMonitor').spec!.endpoints![0]!.path).toBe('/exporter/metrics');
      expect(container(m).args).toContain('--web.telemetry-path=/exporter/metrics');
    },
  ],
  [
    'ServiceMonitor with a TLS web config',
    { webConfig: web, serviceMonitor: { enabled: true, tlsConfig: { insecureSkipVerify: true }, basicAuth: { username: { name: 's', key: 'u' } } } },
    (m) => {
      const ep = m.one('ServiceMonitor').spec!.endpoints![0]!;
      expect(ep.scheme).toBe('https');
      expect(ep.tlsConfig).toEqual({ insecureSkipVerify: true });
      expect(ep.basicAuth).toEqual({ username: { name: 's', key: 'u' } });
    },
  ],
  [
    'PrometheusRule',
    { prometheusRule: { enabled: true } },
    (m) => {
      expect(m.one('PrometheusRule').spec!.groups!.flatMap((g) => g.rules)).toHaveLength(ruleCount);
    },
  ],
  [
    'PrometheusRule with runbookURL',
    { prometheusRule: { enabled: true, runbookURL: 'https://docs.example/dne/runbook.md' } },
    (m) => {
      const urls = m
        .one('PrometheusRule')
        .spec!.groups!.flatMap((g) => g.rules)
        .filter((r) => r.alert)
        .map((r) => r.annotations?.runbook_url);
      expect(urls).toContain('https://docs.example/dne/runbook.md#datanodeexporterdown');
      expect(urls.every((u) => u?.startsWith('https://docs.example/dne/runbook.md#'))).toBe(true);
    },
  ],
  [
    'PrometheusRule linking the runbook through the Service, over TLS',
    { prometheusRule: { enabled: true }, webConfig: web, fullnameOverride: 'mon', service: { port: 9100 } },
    (m) => {
      const urls = m
        .one('PrometheusRule')
        .spec!.groups!.flatMap((g) => g.rules)
        .filter((r) => r.alert)
        .map((r) => r.annotations?.runbook_url);
      expect(urls).toContain('https://mon.default.svc:9100/runbook#vegadatanodedown');
      expect(urls.every((u) => u?.startsWith('https://mon.default.svc:9100/runbook#'))).toBe(true);
    },
  ],
  [
    'dashboards',
    { dashboards: { enabled: true, annotations: { grafana_folder: 'Vega' } } },
    (m) => {
      const cm = m.of('ConfigMap').find((c) => c.metadata.name.endsWith('-dashboards'));
      expect(Object.keys(cm?.data ?? {})).toHaveLength(dashboardFiles.length);
      expect(cm?.metadata).toMatchObject({ labels: { grafana_dashboard: '1' }, annotations: { grafana_folder: 'Vega' } });
    },
  ],
  [
    'existing config map',
    { existingConfigMap: 'my-dne-config' },
    (m) => {
      expect(m.of('ConfigMap')).toEqual([]);
      expect(workload(m).spec!.template!.spec.volumes).toContainEqual({ name: 'config', configMap: { name: 'my-dne-config' } });
    },
  ],
  [
    'resources',
    { resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '1', memory: '512Mi' } } },
    (m) => {
      expect(container(m).resources).toEqual({ requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '1', memory: '512Mi' } });
    },
  ],
  [
    'security-context overrides',
    { podSecurityContext: { runAsUser: 2000, fsGroup: 3000 }, securityContext: { readOnlyRootFilesystem: false, capabilities: null } },
    (m) => {
      expect(workload(m).spec!.template!.spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 2000, runAsGroup: 1000, fsGroup: 3000 });
      expect(container(m).securityContext).toEqual({ readOnlyRootFilesystem: false, allowPrivilegeEscalation: false });
    },
  ],
  [
    'extraArgs and extraEnv',
    {
      extraArgs: ['--log.level=debug', 'two words'],
      extraEnv: [
        { name: 'TZ', value: 'UTC' },
        { name: 'X', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
      ],
    },
    (m) => {
      expect(container(m).args.slice(-2)).toEqual(['--log.level=debug', 'two words']);
      expect(container(m).env).toEqual([
        { name: 'TZ', value: 'UTC' },
        { name: 'X', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
      ]);
    },
  ],
  [
    'three shards',
    { shards: 3, config: { targets: fleet }, serviceMonitor: { enabled: true } },
    (m) => {
      expect(kinds(m)).toEqual(['ServiceAccount', 'ConfigMap', 'Service', 'StatefulSet', 'ServiceMonitor']);
      // The pods' target sets partition the list: each target is watched by exactly one pod.
      const listed = (parseYaml(m.one('ConfigMap').data!['config.yaml']!) as { targets: { name: string }[] }).targets.map((t) => t.name);
      expect(listed).toEqual(fleet.map((t) => t.name));
      const owners = new Map<string, number[]>(listed.map((n) => [n, []]));
      for (let ordinal = 0; ordinal < 3; ordinal++) {
        const shard = podArgs(m, ordinal).filter((a) => a.startsWith('--shard'));
        expect(shard).toEqual([`--shard=${ordinal}/3`]);
        for (const n of listed) if (fnv1a32(n) % 3 === ordinal) owners.get(n)!.push(ordinal);
      }
      for (const [n, o] of owners) expect(o, n).toHaveLength(1);
      expect(new Set([...owners.values()].flat()).size, 'every pod has targets').toBe(3);
    },
  ],
  [
    'one shard is a Deployment',
    { shards: 1, replicaCount: 2 },
    (m) => {
      expect(m.one('Deployment').spec!.replicas).toBe(2);
      expect(container(m).args.some((a) => a.startsWith('--shard'))).toBe(false);
      expect(m.one('Service').spec!.clusterIP).toBeUndefined();
    },
  ],
  [
    'a header value inline: config in a Secret, in no ConfigMap',
    { config: { targets: [{ name: 'a', url: 'http://a:3008', headers: { 'X-Api-Key': HEADER_SECRET } }] }, dashboards: { enabled: true } },
    (m) => {
      expect(m.docs.filter((d) => d.obj.kind === 'ConfigMap' && JSON.stringify(d.obj).includes(HEADER_SECRET))).toEqual([]);
      const secret = m.one('Secret');
      const cfg = parseYaml(Buffer.from(secret.data!['config.yaml']!, 'base64').toString('utf8')) as { targets: { headers: Labels }[] };
      expect(cfg.targets[0]!.headers).toEqual({ 'X-Api-Key': HEADER_SECRET });
      expect(workload(m).spec!.template!.spec.volumes).toContainEqual({ name: 'config', secret: { secretName: secret.metadata.name } });
      expect(m.of('ConfigMap').map((c) => c.metadata.name)).toEqual([`${secret.metadata.name}-dashboards`]);
    },
  ],
  [
    'configSecret without inline headers',
    { configSecret: true },
    (m) => {
      expect(kinds(m)).toEqual(['ServiceAccount', 'Secret', 'Service', 'Deployment']);
      expect(Buffer.from(m.one('Secret').data!['config.yaml']!, 'base64').toString('utf8')).toContain('url: http://datanode:3008');
    },
  ],
  [
    'existing config Secret',
    { existingConfigSecret: 'my-dne-config' },
    (m) => {
      expect(kinds(m)).toEqual(['ServiceAccount', 'Service', 'Deployment']);
      expect(workload(m).spec!.template!.spec.volumes).toContainEqual({ name: 'config', secret: { secretName: 'my-dne-config' } });
    },
  ],
  [
    'headers_file from a Secret in extraVolumes, headers_env from extraEnv',
    {
      config: {
        targets: [
          { name: 'a', url: 'http://a:3008', headers_file: { 'X-Api-Key': '/etc/datanode-exporter/secrets/api-key' } },
          { name: 'b', url: 'http://b:3008', headers_env: { 'X-Api-Key': 'B_API_KEY' } },
        ],
      },
      extraVolumes: [{ name: 'api-key', secret: { secretName: 'dn-api-key' } }],
      extraVolumeMounts: [{ name: 'api-key', mountPath: '/etc/datanode-exporter/secrets', readOnly: true }],
      extraEnv: [{ name: 'B_API_KEY', valueFrom: { secretKeyRef: { name: 'dn-api-key', key: 'b' } } }],
    },
    (m) => {
      expect(kinds(m)).toEqual(['ServiceAccount', 'ConfigMap', 'Service', 'Deployment']);
      expect(workload(m).spec!.template!.spec.volumes).toContainEqual({ name: 'api-key', secret: { secretName: 'dn-api-key' } });
      expect(container(m).volumeMounts).toContainEqual({ name: 'api-key', mountPath: '/etc/datanode-exporter/secrets', readOnly: true });
    },
  ],
  [
    'fullnameOverride',
    { fullnameOverride: 'vega-mon', serviceMonitor: { enabled: true }, prometheusRule: { enabled: true }, podDisruptionBudget: { maxUnavailable: 1 } },
    (m) => {
      expect(new Set(m.docs.map((d) => d.obj.metadata.name))).toEqual(new Set(['vega-mon']));
    },
  ],
  [
    'nameOverride',
    { nameOverride: 'dn-exp', serviceMonitor: { enabled: true } },
    (m) => {
      expect(new Set(m.docs.map((d) => d.obj.metadata.name))).toEqual(new Set(['release-name-dn-exp']));
      expect(workload(m).spec!.template!.metadata.labels['app.kubernetes.io/name']).toBe('dn-exp');
    },
  ],
  [
    'serviceAccount created with a name, annotations and a token',
    { serviceAccount: { name: 'dne', annotations: { 'eks.amazonaws.com/role-arn': 'arn:aws:iam::1:role/x' }, automount: true } },
    (m) => {
      const sa = m.one('ServiceAccount');
      expect([sa.metadata.name, sa.metadata.annotations, sa.automountServiceAccountToken]).toEqual([
        'dne',
        { 'eks.amazonaws.com/role-arn': 'arn:aws:iam::1:role/x' },
        true,
      ]);
      expect(workload(m).spec!.template!.spec.automountServiceAccountToken).toBe(true);
    },
  ],
  [
    'serviceAccount not created, an existing one named',
    { serviceAccount: { create: false, name: 'shared' } },
    (m) => {
      expect(workload(m).spec!.template!.spec.serviceAccountName).toBe('shared');
    },
  ],
  [
    'podDisruptionBudget',
    { podDisruptionBudget: { maxUnavailable: 1 }, shards: 3 },
    (m) => {
      expect(m.one('PodDisruptionBudget').spec!.maxUnavailable).toBe(1);
    },
  ],
  [
    'topologySpreadConstraints',
    {
      topologySpreadConstraints: [
        { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway' },
        { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { team: 'vega' } } },
      ],
    },
    (m) => {
      const [zone, host] = workload(m).spec!.template!.spec.topologySpreadConstraints!;
      subset(zone!.labelSelector!.matchLabels, workload(m).spec!.template!.metadata.labels, 'a constraint without a selector gets the pods');
      expect(host!.labelSelector).toEqual({ matchLabels: { team: 'vega' } });
    },
  ],
  [
    'priorityClassName',
    { priorityClassName: 'monitoring' },
    (m) => {
      expect(workload(m).spec!.template!.spec.priorityClassName).toBe('monitoring');
    },
  ],
  [
    'PodMonitor with relabelings',
    {
      podMonitor: {
        enabled: true,
        relabelings: [{ targetLabel: 'cluster', replacement: 'eu1' }],
        metricRelabelings: [{ action: 'drop', sourceLabels: ['__name__'], regex: 'go_.*' }],
      },
      webConfig: web,
    },
    (m) => {
      expect(m.of('ServiceMonitor')).toEqual([]);
      const ep = m.one('PodMonitor').spec!.podMetricsEndpoints![0]!;
      expect(ep.relabelings!.slice(1)).toEqual([{ targetLabel: 'cluster', replacement: 'eu1' }]);
      expect(ep.metricRelabelings).toEqual([{ action: 'drop', sourceLabels: ['__name__'], regex: 'go_.*' }]);
      expect(ep.scheme).toBe('https');
    },
  ],
  [
    'ServiceMonitor relabelings and metricRelabelings',
    {
      serviceMonitor: {
        enabled: true,
        relabelings: [{ targetLabel: 'cluster', replacement: 'eu1' }],
        metricRelabelings: [{ action: 'labeldrop', regex: 'pod' }],
      },
    },
    (m) => {
      const ep = m.one('ServiceMonitor').spec!.endpoints![0]!;
      expect(ep.relabelings!.slice(1)).toEqual([{ targetLabel: 'cluster', replacement: 'eu1' }]);
      expect(ep.metricRelabelings).toEqual([{ action: 'labeldrop', regex: 'pod' }]);
    },
  ],
  [
    'startupProbe',
    { startupProbe: { httpGet: { path: '/healthz', port: 'http' }, failureThreshold: 30 }, webConfig: web },
    (m) => {
      expect(container(m).startupProbe).toEqual({ httpGet: { path: '/healthz', port: 'http', scheme: 'HTTPS' }, failureThreshold: 30 });
    },
  ],
  [
    'probes on the service port, as before the health listener',
    {
      webConfig: web,
      // null drops the default's explicit scheme: the chart then follows the web config.
      livenessProbe: { httpGet: { path: '/healthz', port: 'http', scheme: null } },
      readinessProbe: { httpGet: { path: '/readyz', port: 'http', scheme: null } },
    },
    (m) => {
      expect(probeSchemes(m)).toEqual(['HTTPS', 'HTTPS']);
    },
  ],
  [
    'NetworkPolicy: Prometheus to the service port, no rule for the health port',
    { networkPolicy: { enabled: true, from: [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } } }] } },
    (m) => {
      const spec = m.one('NetworkPolicy').spec as unknown as {
        podSelector: { matchLabels: Labels };
        policyTypes: string[];
        ingress: { ports: { port: string }[]; from: unknown[] }[];
      };
      subset(spec.podSelector.matchLabels, workload(m).spec!.template!.metadata.labels, 'NetworkPolicy podSelector');
      expect(spec.policyTypes).toEqual(['Ingress']);
      expect(spec.ingress).toEqual([
        { ports: [{ port: 'http', protocol: 'TCP' }], from: [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } } }] },
      ]);
    },
  ],
  [
    'PrometheusRule with alerts disabled',
    { prometheusRule: { enabled: true, disabled: { DatanodeExporterDown: true, VegaDataNodeDown: true } } },
    (m) => {
      const alerts = m
        .one('PrometheusRule')
        .spec!.groups!.flatMap((g) => g.rules)
        .map((r) => r.alert);
      expect(alerts).toHaveLength(ruleCount - 2);
      expect(alerts).not.toContain('DatanodeExporterDown');
      expect(alerts).not.toContain('VegaDataNodeDown');
    },
  ],
  [
    'three shards on Kubernetes 1.28',
    { shards: 3 },
    (m) => {
      expect(workload(m).kind).toBe('StatefulSet');
    },
    'v1.28.0',
  ],
  [
    'global from an umbrella chart: its image registry and pull secrets',
    {
      global: { imageRegistry: 'mirror.example:5000', imagePullSecrets: ['pull-a', { name: 'pull-b' }], storageClass: 'x' },
      imagePullSecrets: [{ name: 'pull-c' }],
    },
    (m) => {
      expect(container(m).image).toBe('mirror.example:5000/datanode-exporter:0.1.0');
      expect(workload(m).spec!.template!.spec.imagePullSecrets).toEqual([{ name: 'pull-a' }, { name: 'pull-b' }, { name: 'pull-c' }]);
    },
  ],
  [
    'image.registry and image.digest',
    { image: { registry: 'registry.example', repository: 'vega/dne', digest: `sha256:${'a'.repeat(64)}` } },
    (m) => {
      expect(container(m).image).toBe(`registry.example/vega/dne@sha256:${'a'.repeat(64)}`);
    },
  ],
  [
    'commonLabels on every object',
    { commonLabels: { team: 'vega' }, serviceMonitor: { enabled: true }, prometheusRule: { enabled: true }, dashboards: { enabled: true } },
    (m) => {
      for (const d of m.docs) expect(d.obj.metadata.labels?.team, d.source).toBe('vega');
    },
  ],
  [
    'service.labels and nodePort',
    { service: { type: 'NodePort', nodePort: 31308, labels: { exposed: 'public' } } },
    (m) => {
      expect(m.one('Service').spec!.ports![0]!.nodePort).toBe(31308);
      expect(m.one('Service').metadata.labels?.exposed).toBe('public');
    },
  ],
  [
    'ServiceMonitor in another namespace, with honorLabels, targetLabels and additionalLabels',
    { serviceMonitor: { enabled: true, namespace: 'monitoring', honorLabels: true, targetLabels: ['team'], additionalLabels: { release: 'kps' } } },
    (m) => {
      const sm = m.one('ServiceMonitor');
      expect(sm.metadata.namespace).toBe('monitoring');
      expect(sm.metadata.labels?.release).toBe('kps');
      expect(sm.spec!.targetLabels).toEqual(['team']);
      expect(sm.spec!.endpoints![0]!.honorLabels).toBe(true);
    },
  ],
  [
    'PodMonitor in another namespace, with honorLabels, podTargetLabels and additionalLabels',
    { podMonitor: { enabled: true, namespace: 'monitoring', honorLabels: true, podTargetLabels: ['team'], additionalLabels: { release: 'kps' } } },
    (m) => {
      const pm = m.one('PodMonitor');
      expect([pm.metadata.namespace, pm.metadata.labels?.release, pm.spec!.podTargetLabels]).toEqual(['monitoring', 'kps', ['team']]);
      expect(pm.spec!.podMetricsEndpoints![0]!.honorLabels).toBe(true);
    },
  ],
  [
    'PrometheusRule in another namespace, with additionalLabels',
    { prometheusRule: { enabled: true, namespace: 'monitoring', additionalLabels: { release: 'kps' } } },
    (m) => {
      const pr = m.one('PrometheusRule');
      expect([pr.metadata.namespace, pr.metadata.labels?.release]).toEqual(['monitoring', 'kps']);
      // The runbook link still names the Service in the release's namespace.
      const alert = pr.spec!.groups!.flatMap((g) => g.rules).find((r) => r.alert);
      expect(alert?.annotations?.runbook_url).toMatch(/^http:\/\/release-name-datanode-exporter\.default\.svc:19308\/runbook#/);
    },
  ],
  [
    'extraContainers, initContainers, hostNetwork, revisionHistoryLimit, updateStrategy',
    {
      extraContainers: [{ name: 'sidecar', image: 'busybox' }],
      initContainers: [{ name: 'init', image: 'busybox' }],
      hostNetwork: true,
      revisionHistoryLimit: 3,
      updateStrategy: { type: 'Recreate' },
    },
    (m) => {
      const w = workload(m);
      expect(w.spec!.template!.spec.containers.map((c) => c.name)).toEqual(['exporter', 'sidecar']);
      expect(w.spec!.template!.spec.initContainers).toEqual([{ name: 'init', image: 'busybox' }]);
      expect([w.spec!.template!.spec.hostNetwork, w.spec!.template!.spec.dnsPolicy]).toEqual([true, 'ClusterFirstWithHostNet']);
      expect([w.spec!.revisionHistoryLimit, w.spec!.strategy]).toEqual([3, { type: 'Recreate' }]);
    },
  ],
  [
    'revisionHistoryLimit 0 keeps no old ReplicaSet',
    { revisionHistoryLimit: 0 },
    (m) => {
      expect(workload(m).spec!.revisionHistoryLimit).toBe(0);
    },
  ],
  [
    'updateStrategy of a StatefulSet',
    { shards: 2, updateStrategy: { type: 'OnDelete' } },
    (m) => {
      expect([workload(m).spec!.updateStrategy, workload(m).spec!.strategy]).toEqual([{ type: 'OnDelete' }, undefined]);
    },
  ],
  [
    "config sources roll the pods: a checksum of the chart's ConfigMap, Reloader annotations naming the Secrets",
    { webConfig: web },
    (m) => {
      expect(workload(m).spec!.template!.metadata.annotations?.['checksum/config']).toMatch(/^[0-9a-f]{64}$/);
      // The chart's ConfigMap is not named: its checksum rolls the pods, Reloader would roll them again.
      expect(workload(m).metadata.annotations).toEqual({ 'secret.reloader.stakater.com/reload': 'dne-web' });
    },
  ],
  [
    "the chart's ConfigMap alone: its checksum, no Reloader annotation",
    {},
    (m) => {
      expect(workload(m).spec!.template!.metadata.annotations?.['checksum/config']).toMatch(/^[0-9a-f]{64}$/);
      expect(workload(m).metadata.annotations).toBeUndefined();
    },
  ],
  [
    'an existing config Secret: named for Reloader, no hash in the pod spec',
    { existingConfigSecret: 'my-dne-config', webConfig: web },
    (m) => {
      expect(workload(m).spec!.template!.metadata.annotations ?? {}).not.toHaveProperty('checksum/config');
      expect(workload(m).metadata.annotations).toEqual({ 'secret.reloader.stakater.com/reload': 'my-dne-config,dne-web' });
    },
  ],
  [
    'an existing ConfigMap: named for Reloader; with Reloader annotations off, none',
    { existingConfigMap: 'my-dne-config' },
    (m) => {
      expect(workload(m).metadata.annotations).toEqual({ 'configmap.reloader.stakater.com/reload': 'my-dne-config' });
      expect(workload(m).spec!.template!.metadata.annotations ?? {}).not.toHaveProperty('checksum/config');
    },
  ],
  [
    'Reloader annotations off',
    { existingConfigMap: 'my-dne-config', reloader: { enabled: false } },
    (m) => {
      expect(workload(m).metadata.annotations).toBeUndefined();
      expect(workload(m).spec!.template!.metadata.annotations ?? {}).not.toHaveProperty('checksum/config');
    },
  ],
  [
    'inline headers: no hash of the secret-bearing config in the pod spec',
    { config: { targets: [{ name: 'a', url: 'http://a:3008', headers: { 'X-Api-Key': HEADER_SECRET } }] } },
    (m) => {
      const pod = JSON.stringify(workload(m).spec!.template);
      expect(pod).not.toContain('checksum');
      const cfg = stringify({ targets: [{ name: 'a', url: 'http://a:3008', headers: { 'X-Api-Key': HEADER_SECRET } }], log: { level: 'info' } });
      for (const text of [cfg, HEADER_SECRET]) expect(pod).not.toContain(createHash('sha256').update(text).digest('hex'));
      expect(workload(m).metadata.annotations).toEqual({ 'secret.reloader.stakater.com/reload': 'release-name-datanode-exporter' });
    },
  ],
  [
    'everything on',
    {
      webConfig: web,
      existingConfigMap: 'my-dne-config',
      extraArgs: ['--log.level=debug'],
      extraEnv: [{ name: 'TZ', value: 'UTC' }],
      serviceMonitor: { enabled: true },
      prometheusRule: { enabled: true, runbookURL: 'https://example.org/runbook' },
      dashboards: { enabled: true },
    },
    (m) => {
      expect(kinds(m)).toEqual(['ServiceAccount', 'ConfigMap', 'Service', 'Deployment', 'PrometheusRule', 'ServiceMonitor']);
      expect(probeSchemes(m)).toEqual(['HTTP', 'HTTP']);
    },
  ],
];

describe("helm chart rendered with Helm's engine (tools/chart-render)", () => {
  it.each(matrix)('%s', (name, overrides, specific, kubeVersion) => {
    const m = render(name, overrides, kubeVersion);
    check(m);
    specific(m);
  });

  it("the README's helm install renders and passes the checks", () => {
    const readme = read('README.md');
    const cmd = /^helm install dne helm\/datanode-exporter ((?:.*\\\n)*.*)$/m.exec(readme)?.[1];
    expect(cmd).toBeDefined();
    const overrides: Record<string, unknown> = {};
    for (const [, path, value] of cmd!.matchAll(/--set '?([^=' ]+)=([^' ]+)'?/g)) {
      // a.b[0].c=v as Helm's --set reads it: dots and indexes into maps and lists
      const keys = path!.split(/\.|\[(\d+)\]/).filter((k) => k !== undefined && k !== '');
      let at: Record<string, unknown> = overrides;
      keys.forEach((k, i) => {
        if (i === keys.length - 1) at[k] = value === 'true' ? true : value;
        else at = (at[k] ??= /^\d+$/.test(keys[i + 1]!) ? [] : {}) as Record<string, unknown>;
      });
    }
    expect(overrides).toMatchObject({ config: { targets: [{ name: 'dn1', url: 'http://datanode:3008' }] }, serviceMonitor: { enabled: true } });
    const m = render('readme', overrides);
    check(m);
    expect(kinds(m)).toEqual(['ServiceAccount', 'ConfigMap', 'ConfigMap', 'Service', 'Deployment', 'PrometheusRule', 'ServiceMonitor']);
  });

  it("the test's FNV-1a matches the published 32-bit test vectors", () => {
    expect([fnv1a32(''), fnv1a32('a'), fnv1a32('foobar')]).toEqual([0x811c9dc5, 0xe40c292c, 0xbf9cf968]);
  });

  it('the checks fail on a broken rendering', () => {
    const fresh = (): Rendered => render('broken', { webConfig: web, serviceMonitor: { enabled: true } });
    const breakages: [string, (m: Rendered) => void][] = [
      [
        'probe scheme HTTPS on the plain-HTTP health port',
        (m) => {
          container(m).livenessProbe!.httpGet!.scheme = 'HTTPS';
        },
      ],
      [
        'probe scheme at the probe level',
        (m) => {
          const p = container(m).readinessProbe as Probe & { scheme?: string };
          p.scheme = p.httpGet!.scheme;
          delete p.httpGet;
        },
      ],
      [
        'Service selects other pods',
        (m) => {
          (m.one('Service').spec!.selector as Labels)['app.kubernetes.io/instance'] = 'other';
        },
      ],
      [
        'ServiceMonitor on a missing port',
        (m) => {
          m.one('ServiceMonitor').spec!.endpoints![0]!.port = 'metrics';
        },
      ],
      [
        'mount without a volume',
        (m) => {
          container(m).volumeMounts!.push({ name: 'nope', mountPath: '/x' });
        },
      ],
      [
        'ServiceMonitor without the job relabeling',
        (m) => {
          m.one('ServiceMonitor').spec!.endpoints![0]!.relabelings!.shift();
        },
      ],
      [
        'pod on another ServiceAccount',
        (m) => {
          workload(m).spec!.template!.spec.serviceAccountName = 'other';
        },
      ],
      [
        'config from a Secret that is not rendered',
        (m) => {
          workload(m).spec!.template!.spec.volumes![0] = { name: 'config', secret: { secretName: 'ghost' } };
        },
      ],
      [
        'config map that is not rendered',
        (m) => {
          workload(m).spec!.template!.spec.volumes![0]!.configMap!.name = 'ghost';
        },
      ],
    ];
    const sharded = (): Rendered => render('broken-shards', { shards: 3 });
    const shardBreakages: [string, (m: Rendered) => void][] = [
      [
        'a Service with a cluster IP',
        (m) => {
          m.one('Service').spec!.clusterIP = '10.0.0.1';
        },
      ],
      [
        'fewer pods than shards',
        (m) => {
          workload(m).spec!.replicas = 2;
        },
      ],
      [
        'a Deployment as well',
        (m) => {
          m.docs.push({ source: 'x', obj: { ...workload(m), kind: 'Deployment' } });
        },
      ],
    ];
    for (const [what, breakIt] of shardBreakages) {
      const m = sharded();
      expect(() => check(m), 'intact rendering').not.toThrow();
      breakIt(m);
      expect(() => check(m), what).toThrow();
    }
    for (const [what, breakIt] of breakages) {
      const m = fresh();
      expect(() => check(m), 'intact rendering').not.toThrow();
      breakIt(m);
      expect(() => check(m), what).toThrow();
    }
  });

  it("the renderer follows symbolic links as Helm's loader does: a linked directory under the link's path, a linked file, a loop once", () => {
    const dir = join(work, 'link-chart');
    const outside = join(work, 'link-outside');
    mkdirSync(join(dir, 'templates'), { recursive: true });
    mkdirSync(join(dir, 'files'), { recursive: true });
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(dir, 'Chart.yaml'), 'apiVersion: v2\nname: link\nversion: 0.0.1\n');
    writeFileSync(join(dir, 'values.yaml'), '{}\n');
    writeFileSync(join(outside, 'a.json'), '{"a": 1}\n');
    writeFileSync(join(outside, 'rules.yml'), 'groups: []\n');
    symlinkSync('../../link-outside', join(dir, 'files', 'linked'));
    symlinkSync('../../link-outside/rules.yml', join(dir, 'files', 'rules.yml'));
    symlinkSync('.', join(dir, 'files', 'loop'));
    writeFileSync(
      join(dir, 'templates', 'cm.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: l}\ndata:\n  glob: {{ (.Files.Glob "files/linked/*.json").AsConfig | toJson }}\n  rules: {{ .Files.Get "files/rules.yml" | quote }}\n',
    );
    const r = run(bin, [dir]);
    expect(r.status, r.out).toBe(0);
    const cm = parseYaml(r.stdout.split(/^---\n/m)[1]!) as { data: Record<string, string> };
    expect(cm.data).toEqual({ glob: 'a.json: |\n  {"a": 1}', rules: 'groups: []\n' });
  });

  it('the renderer behaves as Helm: include, tpl, required, .Files, null removes a default, install order', () => {
    const dir = join(work, 'probe-chart');
    const files: Record<string, string> = {
      'Chart.yaml': 'apiVersion: v2\nname: probe\nversion: 1.2.3\nappVersion: "9"\n',
      'values.yaml': 'greeting: "hi {{ .Release.Name }}"\nkeep: {a: 1, b: 2}\n',
      'files/d/one.json': '{"x": 1}\n',
      'files/d/sub/two.json': '{}\n',
      'templates/_h.tpl': '{{- define "p.name" -}}{{ .Chart.Name }}-{{ .Release.Name }}{{- end -}}\n',
      'templates/z.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata: {name: {{ include "p.name" . }}}\n',
      'templates/a.yaml': [
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata:',
        '  name: {{ include "p.name" . }}',
        'data:',
        '  tpl: {{ tpl .Values.greeting . | quote }}',
        '  missing: "{{ .Values.nothere }}"',
        '  keep: {{ toJson .Values.keep | quote }}',
        '  template: {{ .Template.Name }}',
        '  glob: {{ (.Files.Glob "files/d/*.json").AsConfig | toJson }}',
        '{{- if .Values.need }}{{ required "need.value is required" .Values.need.value }}{{ end }}',
        '---',
        '',
      ].join('\n'),
      'templates/empty.yaml': '{{- if false }}\nkind: Never\n{{- end }}\n  \n',
    };
    for (const [p, text] of Object.entries(files)) {
      mkdirSync(join(dir, p, '..'), { recursive: true });
      writeFileSync(join(dir, p), text);
    }
    writeFileSync(join(dir, 'o.yaml'), 'keep: {a: null}\n');
    const r = run(bin, ['-name', 'rel', '-f', join(dir, 'o.yaml'), dir]);
    expect(r.status, r.out).toBe(0);
    // Helm's order: Namespace before ConfigMap; empty renders and partials print nothing.
    expect([...r.stdout.matchAll(/^# Source: (.+)$/gm)].map((x) => x[1])).toEqual(['probe/templates/z.yaml', 'probe/templates/a.yaml']);
    const cm = parseYaml(r.stdout.split(/^---\n/m)[2]!) as { metadata: { name: string }; data: Record<string, string> };
    expect(cm.metadata.name).toBe('probe-rel');
    expect(cm.data).toEqual({
      tpl: 'hi rel',
      missing: '',
      keep: '{"b":2}',
      template: 'probe/templates/a.yaml',
      glob: 'one.json: |\n  {"x": 1}',
    });
    writeFileSync(join(dir, 'o.yaml'), 'need: {other: 1}\n');
    const req = run(bin, ['-f', join(dir, 'o.yaml'), dir]);
    expect(req.status).toBe(1);
    expect(req.out).toContain('execution error at (probe/templates/a.yaml:11:');
    expect(req.out).toContain('need.value is required');
  });

  /** The render's error output for values that must not render. */
  function renderError(name: string, overrides: object, kubeVersion = 'v1.30.0'): string {
    const file = join(work, `${name.replace(/\W+/g, '-')}.yaml`);
    writeFileSync(file, stringify(overrides));
    const r = run(bin, ['-kube-version', kubeVersion, '-f', file, chart]);
    expect(r.status, r.out).toBe(1);
    return r.out;
  }

  it('shards > 1 before Kubernetes 1.28 (no pod-index label): a render error saying so; one shard there, or three on 1.28, render', () => {
    const out = renderError('shards-old-cluster', { shards: 3 }, 'v1.27.9-eks-1234');
    expect(out).toContain('execution error at (datanode-exporter/templates/workload.yaml');
    expect(out).toContain('shards: 3 needs Kubernetes 1.28 or newer');
    expect(out).toContain('this cluster is v1.27.9-eks-1234');
    check(render('one-shard-old-cluster', { shards: 1 }, 'v1.27.9'));
    expect(workload(render('shards-1.28', { shards: 3 }, 'v1.28.0')).kind).toBe('StatefulSet');
    // Chart.yaml's kubeVersion: older clusters are refused whatever the values.
    expect(renderError('too-old', {}, 'v1.22.17')).toContain('chart requires kubeVersion: >=1.23.0-0');
  });

  it('refuses both monitors, an alert name no rule has, and two config sources, naming the values', () => {
    expect(renderError('two-monitors', { serviceMonitor: { enabled: true }, podMonitor: { enabled: true } })).toContain(
      'serviceMonitor.enabled and podMonitor.enabled: choose one',
    );
    expect(renderError('unknown-alert', { prometheusRule: { enabled: true, disabled: { DatanodeExporterDwon: true } } })).toContain(
      'prometheusRule.disabled: no alert named "DatanodeExporterDwon"',
    );
    expect(renderError('two-configs', { existingConfigMap: 'a', existingConfigSecret: 'b' })).toContain('existingConfigMap and existingConfigSecret: set one');
  });

  it('a value values.schema.json refuses fails the render, as in Helm', () => {
    for (const bad of [
      { replicaCount: 'two' },
      { service: { nodeport: 30000 } },
      { serviceMonitor: { namespace: 'Not_A_Namespace' } },
      { image: { digest: 'latest' } },
    ])
      expect(() => render('schema-error', bad), JSON.stringify(bad)).toThrow(/values\.schema\.json/);
  });

  it('replicaCount with shards > 1 is refused, naming both', () => {
    expect(renderError('replicas-and-shards', { shards: 3, replicaCount: 2 })).toContain('replicaCount: 2 with shards: 3');
    expect(renderError('deployment-ondelete', { updateStrategy: { type: 'OnDelete' } })).toContain(
      'updateStrategy.type: OnDelete is not a Deployment strategy',
    );
  });

  it('values.schema.json takes the community keys and still refuses unknown or contradictory ones', () => {
    const values = (over: object): unknown => {
      const file = join(work, 'schema-probe.yaml');
      writeFileSync(file, stringify(over));
      const r = run(bin, ['-show-values', '-f', file, chart]);
      expect(r.status, r.out).toBe(0);
      return JSON.parse(r.stdout);
    };
    expect(validateValues(values({})), JSON.stringify(validateValues.errors)).toBe(true);
    for (const bad of [
      { serviceAccount: { create: true, automountToken: true } },
      { podDisruptionBudget: { minAvailable: 1, maxUnavailable: 1 } },
      { podMonitor: { enabled: true, relabeling: [] } },
      { prometheusRule: { disabled: { DatanodeExporterDown: 1 } } },
      { extraVolumeMounts: [{ name: 'x' }] },
      { config: { targets: [{ name: 'a', url: 'http://a:1', headers_env: { 'X-Api-Key': 'not a name' } }] } },
    ]) {
      expect(validateValues(values(bad)), JSON.stringify(bad)).toBe(false);
    }
  });

  it('a template error fails the render, naming the file (as helm template does)', () => {
    const file = join(work, 'bad-type.yaml');
    writeFileSync(file, stringify({ webConfig: 'not a map' }));
    const r = run(bin, ['-f', file, chart]);
    expect(r.status).toBe(1);
    expect(r.out).toMatch(/datanode-exporter\/templates\/\w+\.yaml/);
  });
});
