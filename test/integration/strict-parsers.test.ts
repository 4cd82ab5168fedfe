/**
 * The bodies /metrics and /probe serve, in both formats, gzipped and plain, with every collector on
 * against the simulator, read by parsers that are not ours: the reference Python client's
 * (Debian's python3-prometheus-client, strict for OpenMetrics) and, for the text format, promtool.
 */
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '@datanode-exporter/simulator/server';
import { startExporter, type RunningExporter } from '../helpers/exporter.js';

/** Debian's interpreter: the one python3-prometheus-client is installed for (not a pyenv `python3` on PATH). */
const PYTHON = '/usr/bin/python3';
const PARSE = `
import sys
from prometheus_client.parser import text_string_to_metric_families as text
from prometheus_client.openmetrics.parser import text_string_to_metric_families as openmetrics
try:
    families = list((openmetrics if sys.argv[1] == 'openmetrics' else text)(sys.stdin.read()))
except Exception as e:
    print(f"{type(e).__name__}: {e}", file=sys.stderr)
    sys.exit(1)
for f in families:
    print(f.name, f.type, len(f.samples))
`;

type Format = 'text' | 'openmetrics';
/** As the formats' specifications name them (Prometheus text 0.0.4, OpenMetrics 1.0.0). */
const CONTENT_TYPE: Record<Format, string> = {
  text: 'text/plain; version=0.0.4; charset=utf-8',
  openmetrics: 'application/openmetrics-text; version=1.0.0; charset=utf-8',
};
/** What Prometheus 2.42 sends for each. */
const ACCEPT: Record<Format, string> = {
  text: 'text/plain;version=0.0.4;q=1,*/*;q=0.1',
  openmetrics: 'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1',
};

/** The Python client's families (name, type, sample count), or its error message. */
function pythonParse(body: string, format: Format): { families: string[] } | { error: string } {
  const r = spawnSync(PYTHON, ['-c', PARSE, format], { input: body, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.error) throw new Error(`${PYTHON} is required for this test (apt-get install python3-prometheus-client): ${r.error.message}`);
  if (r.status !== 0) return { error: r.stderr.trim().split('\n').at(-1) ?? `exit ${r.status}` };
  return { families: r.stdout.trim().split('\n') };
}

function promtool(body: string): string {
  const r = spawnSync('promtool', ['check', 'metrics'], { input: body, encoding: 'utf8' });
  if (r.error) throw new Error(`promtool is required for this test (apt-get install prometheus): ${r.error.message}`);
  return `${r.status}${r.stdout}${r.stderr}`;
}

/** The raw answer: headers as sent, the body un-gzipped here (fetch would do it unasked). */
function get(url: string, headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const raw = Buffer.concat(chunks);
          const body = res.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: body.toString('utf8') });
        });
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** The families a body declares (# TYPE lines), named as the Python client names them: counters without `_total`. */
const declared = (body: string): string[] =>
  body
    .split('\n')
    .filter((l) => l.startsWith('# TYPE '))
    .map((l) => l.split(' '))
    .map(([, , name, type]) => (type === 'counter' ? name!.replace(/_total$/, '') : name!));

describe('the parser harness', () => {
  it("reports the OpenMetrics parser's message for a counter whose _created sample is another family", () => {
    const body = '# TYPE a counter\na_total 1\n# TYPE a_created counter\na_created_total 1\n# EOF\n';
    expect(pythonParse(body, 'openmetrics')).toEqual({ error: 'ValueError: Clashing name: a_created' });
  });

  it("reports the text parser's message for a malformed line, and promtool rejects it", () => {
    const body = '# TYPE a gauge\na{x="1} 1\n';
    expect(pythonParse(body, 'text')).toMatchObject({ error: expect.stringMatching(/Error/) });
    expect(promtool(body)).not.toMatch(/^0/);
  });
});

describe('/metrics and /probe, every collector on, against the simulator', () => {
  let sim: Simulator;
  let e: RunningExporter;
  beforeAll(async () => {
    sim = await startSimulator({ seed: 7, markets: 4, parties: 6, positions: 12, orders: 4, signatureResources: 2, rotations: 30, oddLabels: true });
    const net = sim.net;
    e = await startExporter(
      sim.url,
      {
        collectors: {
          positions: { party_ids: net.parties.slice(0, 3).map((p) => p.id) },
          parties: { enabled: true, party_ids: [net.parties[0]!.id, '0'.repeat(64)] },
          node_signatures: { ids: [...net.signatures.keys()] },
          orders: { ids: [net.orders[0]!.id, `${net.orders[1]!.id}@1`] },
        },
      },
      'silent',
    );
    await e.poll();
    return async () => {
      await e.stop();
      await sim.close();
    };
  }, 30_000);

  const cases = (['/metrics', '/probe?target=node1'] as const).flatMap((path) =>
    (['text', 'openmetrics'] as const).flatMap((format) => (['gzip', 'identity'] as const).map((encoding) => [path, format, encoding] as const)),
  );

  it('every collector succeeded, so every family is in the bodies', async () => {
    const res = await get(`${e.url}/metrics`, {});
    for (const c of ['statistics', 'network_history', 'consistency', 'datanode_info', 'history_segments'])
      expect(res.body, c).toContain(`datanode_exporter_collector_success{target="node1",collector="${c}"} 1`);
    for (const c of ['key_rotations', 'markets', 'positions', 'parties', 'node_signatures', 'orders', 'market_data', 'network_data'])
      expect(res.body, c).toMatch(new RegExp(`^datanode_exporter_network_collector_success\\{network="[^"]+",collector="${c}"\\} 1$`, 'm'));
  });

  it.each(cases)('%s as %s, %s: the format asked for, read whole by the strict parsers', async (path, format, encoding) => {
    const res = await get(`${e.url}${path}`, { accept: ACCEPT[format], 'accept-encoding': encoding });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(CONTENT_TYPE[format]);
    expect(res.headers['content-encoding']).toBe(encoding === 'gzip' ? 'gzip' : undefined);
    expect(res.headers.vary).toBe('Accept, Accept-Encoding');
    if (format === 'openmetrics') expect(res.body.endsWith('# EOF\n')).toBe(true);
    const parsed = pythonParse(res.body, format);
    if ('error' in parsed) expect.fail(`prometheus_client (${format}) rejected ${path}: ${parsed.error}`);
    // Every family the body declares, and no other, as the parser read it.
    expect(parsed.families.map((f) => f.split(' ')[0])).toEqual(declared(res.body));
    expect(parsed.families).toContain(path === '/metrics' ? 'vega_up gauge 1' : 'datanode_exporter_probe_success gauge 1');
    if (format === 'text') expect(promtool(res.body)).toBe('0');
  });
});
