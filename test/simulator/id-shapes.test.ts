/**
 * Ids of other shapes than 64 lowercase hex, over real HTTP, in both profiles. The specification
 * types ids as plain strings, so the default (`spec`) profile answers an unknown id of any shape with
 * the operation's not-found answer (datanode-api.md: 404 for single-object lookups, 200 and an empty
 * page for lists) and finds a record whose id has such a shape; the `datanode` profile answers 400
 * InvalidArgument "must be a 64 character hex string" for a malformed id, as a data node does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, withSim } from '../helpers/sim.js';

type Sim = Awaited<ReturnType<typeof withSim>>;

const SHAPES: [string, string][] = [
  ['a short name', 'm1'],
  ['base64 with + / =', 'Qk+/x9Z=ab=='],
  ['upper case', 'ABCDEF0123456789'.repeat(4)],
  ['200 characters', 'z'.repeat(200)],
];
const enc = encodeURIComponent;
const EMPTY_PAGE = { edges: [], pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: '', endCursor: '' } };

let spec: Sim;
let dn: Sim;
beforeAll(async () => {
  spec = await withSim({ seed: 5, now: new ManualClock().now });
  dn = await withSim({ seed: 5, now: new ManualClock().now, profile: 'datanode' });
});
afterAll(async () => {
  await spec.close();
  await dn.close();
});

/** A data-node error: the gRPC code, and the useful text in details[0]. */
function expectError(r: { status: number; body: any }, http: number, grpc: number, detail: RegExp): void {
  expect([r.status, r.body.code]).toEqual([http, grpc]);
  expect(r.body.details[0]['@type']).toBe('type.googleapis.com/vega.ErrorDetail');
  expect(r.body.details[0].message).toMatch(detail);
}

describe.each(SHAPES)('an id that is %s', (_, id) => {
  it('spec profile: lookups answer 404 not found, lists and filters an empty answer', async () => {
    for (const path of [`/api/v2/order/${enc(id)}`, `/api/v2/market/${enc(id)}`, `/api/v2/asset/${enc(id)}`, `/api/v2/parties?partyId=${enc(id)}`]) {
      expectError(await spec.json(path), 404, 5, /not (found|exist)/);
    }
    for (const filter of ['filter.partyIds', 'filter.marketIds']) {
      expect(await spec.json(`/api/v2/positions?${filter}=${enc(id)}`)).toMatchObject({ status: 200, body: { positions: EMPTY_PAGE } });
    }
    expect(await spec.json(`/markets?market=${enc(id)}`)).toMatchObject({ status: 200, body: { markets: [] } });
    expect(await spec.json(`/api/v2/chain/keys/rotations?nodeId=${enc(id)}`)).toMatchObject({ status: 200, body: { rotations: EMPTY_PAGE } });
    expect(await spec.json(`/api/v2/node/signatures?id=${enc(id)}`)).toMatchObject({ status: 200, body: { signatures: EMPTY_PAGE } });
  });

  it('spec profile: a record named by it is found, the id decoded from the path and the query exactly', async () => {
    const order = spec.net.orders[0]!;
    spec.net.ordersById.set(id, { ...order, id });
    const pos = { ...spec.net.positions[0]!, partyId: id };
    spec.net.positions.push(pos);
    spec.net.parties.push({ seq: spec.net.parties.length, id });
    try {
      expect(await spec.json(`/api/v2/order/${enc(id)}`)).toMatchObject({ status: 200, body: { order: { id, marketId: order.marketId } } });
      const listed = await spec.json(`/api/v2/positions?filter.partyIds=${enc(id)}`);
      expect(listed.body.positions.edges.map((e: any) => [e.node.partyId, e.node.marketId])).toEqual([[id, pos.marketId]]);
      const party = await spec.json(`/api/v2/parties?partyId=${enc(id)}`);
      expect(party.body.parties.edges.map((e: any) => e.node.id)).toEqual([id]);
    } finally {
      spec.net.ordersById.delete(id);
      spec.net.positions.pop();
      spec.net.parties.pop();
    }
  });

  it('datanode profile: lookups by it and position filters with it answer 400 InvalidArgument', async () => {
    for (const [path, what] of [
      [`/api/v2/order/${enc(id)}`, 'order ID'],
      [`/api/v2/market/${enc(id)}`, 'market ID'],
      [`/api/v2/asset/${enc(id)}`, 'asset ID'],
    ]) {
      expectError(await dn.json(path!), 400, 3, new RegExp(`invalid ${what}: must be a 64 character hex string`));
    }
    for (const filter of ['filter.partyIds', 'filter.marketIds']) {
      expectError(await dn.json(`/api/v2/positions?${filter}=${enc(id)}`), 400, 3, /contains an invalid id/);
      // one malformed id among good ones, repeated or comma-separated, still fails the request
      const good = 'ab'.repeat(32);
      expectError(await dn.json(`/api/v2/positions?${filter}=${good}&${filter}=${enc(id)}`), 400, 3, /contains an invalid id/);
      expectError(await dn.json(`/api/v2/positions?${filter}=${good},${enc(id)}`), 400, 3, /contains an invalid id/);
    }
  });
});

it('datanode profile: 64 lowercase hex and `network` pass the check and get the not-found answer', async () => {
  const hex = 'ab'.repeat(32);
  expectError(await dn.json(`/api/v2/order/${hex}`), 404, 5, /not found/);
  expect(await dn.json(`/api/v2/positions?filter.partyIds=${hex}`)).toMatchObject({ status: 200, body: { positions: EMPTY_PAGE } });
  expect((await dn.json('/api/v2/positions?filter.partyIds=network')).status).toBe(200);
});

it('the check is the hexIds fault: on in the datanode profile, off in spec, and clearing faults returns to the profile', async () => {
  const path = `/api/v2/order/${enc('m1')}`;
  spec.patchFaults({ hexIds: true });
  expect((await spec.json(path)).status).toBe(400);
  spec.clearFaults();
  expect((await spec.json(path)).status).toBe(404);
  dn.patchFaults({ hexIds: false });
  expect((await dn.json(path)).status).toBe(404);
  dn.clearFaults();
  expect((await dn.json(path)).status).toBe(400);
});
