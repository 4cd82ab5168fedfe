/**
 * A 403 backs off what it answered: the endpoint, unless the node says the refusal is for the
 * host (a ban carries `RateLimit-Retry-After`, docs/datanode-api.md "Errors"; a plain
 * `Retry-After` is read the same way). Against a hostile node of the test's own.
 */
import { describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/exporter/http/client.js';
import { ENDPOINT_ROWS } from '../../src/exporter/vega/endpoints.js';
import { PacerRegistry } from '../../src/exporter/http/pace.js';
import { scrape } from '../helpers/expo.js';
import { hostileNode, json, type HostileNode } from '../helpers/hostile.js';
import { lifecycle } from '../helpers/lifecycle.js';

const life = lifecycle();
const INFO = '/api/v2/info';
const DENIED = JSON.stringify({ code: 7, message: 'PermissionDenied error', details: [] });

async function node(infoHeaders: Record<string, string> | undefined): Promise<HostileNode> {
  const n = await hostileNode({
    [INFO]: (_q, res) => (infoHeaders ? json(res, DENIED, 403, infoHeaders) : json(res, JSON.stringify({ version: 'v0.79.0', commitHash: 'abc' }))),
  });
  life.defer(n.close);
  return n;
}

function client(url: string, pacers?: PacerRegistry): HttpClient {
  const c = new HttpClient({
    ...(pacers ? { pacers } : {}),
    url,
    headers: {},
    connectTimeoutMs: 2000,
    headersTimeoutMs: 2000,
    bodyTimeoutMs: 2000,
    requestTimeoutMs: 3000,
    maxResponseBytes: 1 << 20,
    lists: ENDPOINT_ROWS,
    requestsPerSecond: 100,
    burst: 100,
    retries: 0,
  });
  life.defer(() => c.close());
  return c;
}

const signal = (): AbortSignal => AbortSignal.timeout(5000);

describe('a 403 backs off the endpoint that answered it', () => {
  it('without Retry-After: that endpoint waits, the host does not', async () => {
    const n = await node({});
    const c = client(n.url);
    await expect(c.get(INFO, [], 'info', signal())).rejects.toMatchObject({ status: 403 });
    // The other endpoints of the host are asked as before.
    await expect(c.get('/statistics', [], 'statistics', signal())).resolves.toMatchObject({ status: 200 });
    expect(n.counts.get('/statistics')).toBe(1);
    expect(c.backoffUntil()).toBeUndefined();
    // The refused endpoint is not asked again while it backs off (600 s, a node's ban).
    await expect(c.get(INFO, [], 'info', signal())).rejects.toMatchObject({ code: 'UPSTREAM_RATE_LIMITED', message: /info: backing off for 600 s/ });
    expect(n.counts.get(INFO)).toBe(1);
  });

  it('a reload lifts an endpoint back-off, as it lifts a ban', async () => {
    const n = await node({});
    const pacers = new PacerRegistry();
    const c = client(n.url, pacers);
    await expect(c.get(INFO, [], 'info', signal())).rejects.toMatchObject({ status: 403 });
    await expect(c.get(INFO, [], 'info', signal())).rejects.toMatchObject({ code: 'UPSTREAM_RATE_LIMITED' });
    expect(n.counts.get(INFO)).toBe(1);
    pacers.reset();
    await expect(c.get(INFO, [], 'info', signal())).rejects.toMatchObject({ status: 403 });
    expect(n.counts.get(INFO)).toBe(2);
  });

  it.each([['ratelimit-retry-after'], ['retry-after']])('with %s: a ban, the whole host waits', async (header) => {
    const n = await node({ [header]: '600' });
    const c = client(n.url);
    await expect(c.get(INFO, [], 'info', signal())).rejects.toMatchObject({ status: 403, retryAfterSeconds: 600 });
    await expect(c.get('/statistics', [], 'statistics', signal())).rejects.toMatchObject({ code: 'UPSTREAM_RATE_LIMITED' });
    expect(n.counts.get('/statistics') ?? 0).toBe(0);
    expect(c.backoffUntil()).toBeGreaterThan(Date.now() + 590_000);
  });

  it('the exporter: one 403 on /api/v2/info fails datanode_info only; statistics and the rest keep polling', async () => {
    const n = await node({});
    const e = await life.exporter(n.url, {
      collectors: {
        key_rotations: { enabled: false },
        network_history: { enabled: false },
        history_segments: { enabled: false },
        consistency: { enabled: false },
      },
    });
    const before = n.counts.get('/statistics') ?? 0;
    await e.poll();
    const m = await scrape(e.url);
    const t = { target: 'node1' };
    expect(m.value('vega_up', t)).toBe(1);
    expect(m.value('datanode_exporter_collector_success', { ...t, collector: 'datanode_info' })).toBe(0);
    expect(m.value('datanode_exporter_collector_success', { ...t, collector: 'statistics' })).toBe(1);
    expect(n.counts.get('/statistics')).toBeGreaterThan(before); // asked again (a scheduled poll may add one)
    expect(n.counts.get(INFO)).toBe(1); // asked once, then backed off
    expect(m.has('datanode_exporter_upstream_backoff_until_timestamp_seconds')).toBe(false);
  });
});
