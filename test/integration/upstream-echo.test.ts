/**
 * A node that echoes what it was sent: its error text may hold a configured
 * API-key header; the logs keep the status and gRPC code, never the text.
 */
import { describe, expect, it } from 'vitest';
import { hostileNode, json } from '../helpers/hostile.js';
import { lifecycle } from '../helpers/lifecycle.js';

const { defer, exporter } = lifecycle();
const CANARY = 'CANARY-api-key-7d1f';

describe('upstream error text', () => {
  it('an error body echoing the configured header value: logged as status and gRPC code only', async () => {
    const node = await hostileNode({
      '/statistics': (req, res) => {
        const key = String(req.headers['x-api-key']);
        json(res, JSON.stringify({ code: 16, message: `bad key ${key}`, details: [{ code: 10000, message: `key ${key} refused` }] }), 500);
      },
    });
    defer(node.close);
    const e = await exporter(
      '',
      {
        targets: [{ name: 'n', url: node.url, headers: { 'X-Api-Key': CANARY } }],
        http: { retries: 0 },
        collectors: { markets: { enabled: false }, key_rotations: { enabled: false }, consistency: { enabled: false }, network_history: { enabled: false } },
      },
      'trace',
    );
    await e.poll('statistics');
    expect(node.counts.get('/statistics')).toBeGreaterThan(0);
    const failing = e.logs.parsed().filter((l) => l.msg === 'collector failing' && l.collector === 'statistics');
    expect(failing.length).toBeGreaterThan(0);
    expect(failing[0]!.err).toBe('statistics: HTTP 500 (gRPC 16) (detail 10000)');
    expect(e.logs.text).not.toContain(CANARY);
    expect(await (await fetch(`${e.url}/metrics`)).text()).not.toContain(CANARY);
  });
});
