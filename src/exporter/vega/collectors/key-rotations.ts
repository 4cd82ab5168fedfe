/**
 * Validator key rotations. The first poll walks the whole history oldest-first; later polls ask only
 * for rows after the last cursor seen, so a steady-state poll is one request whatever the history's
 * size. State lives in memory: a restart rebuilds the counts with one full walk.
 */
import { metricsOf, type MetricDef } from '../../engine/metric.js';
import { simpleCollectorConfig } from '../../engine/fields.js';
import { id, obj, str, u64 } from '../convert.js';
import { UpstreamHttpError } from '../../errors.js';
import { walkConnection } from '../paginate.js';
import { ROTATION_ROW } from '../list-rows.js';
import type { Sample } from '../../engine/labels.js';
import { defineCollector } from '../../engine/define.js';
import { RowSkips } from '../../engine/rows.js';
import type { CollectContext, CollectResult, Collector } from '../../engine/types.js';

const N = ['network'] as const;
const metric = metricsOf('key_rotations');

/** The families this collector writes, in exposition order. */
export const M = {
  rotations: metric('vega_key_rotations_total', [...N, 'node_id'], 'rotations')
    .source('GET /api/v2/vega/keys/rotations (all pages)')
    .help('Key rotations per validator node over the whole history.'),
  rotationLastHeight: metric('vega_key_rotation_last_block_height', [...N, 'node_id'], 'blocks')
    .source('GET /api/v2/vega/keys/rotations rotations.blockHeight')
    .help("Block height of the validator's last key rotation."),
} as const satisfies Record<string, MetricDef>;

/** The real data node path first; the specification's path when a node answers 404 there. */
export const ROTATION_PATHS = ['/api/v2/vega/keys/rotations', '/api/v2/chain/keys/rotations'] as const;

export interface RotationRow {
  nodeId: string;
  newPubKey: string;
  blockHeight: bigint;
}

export function parseRotation(node: unknown, path: string): RotationRow {
  const n = obj(node, path);
  return { nodeId: id(n.nodeId, `${path}.nodeId`), newPubKey: str(n.newPubKey, `${path}.newPubKey`), blockHeight: u64(n.blockHeight, `${path}.blockHeight`) };
}

/**
 * Characters of node ids a tally tracks: 25,000 ids of 64 hex characters (the network's default
 * series limit, two series each) fit; longer ids fill it sooner, so they make fewer series.
 */
export const MAX_ID_BYTES = 2 * 1024 * 1024;

/** Running per-node counts; the pure state the collector keeps between polls. */
export class RotationTally {
  readonly byNode = new Map<string, { count: number; lastHeight: bigint }>();
  /** Rows of node ids beyond maxNodes or maxIdBytes were not counted (the tally is not the node's whole history). */
  overflow = false;
  /** Characters of the node ids tracked. */
  private idBytes = 0;

  /**
   * At most this many node ids are tracked (two series each), and at most this many characters of
   * them: a node minting ids, short or long, cannot grow memory beyond the budget.
   */
  constructor(
    private readonly maxNodes = Infinity,
    private readonly maxIdBytes = MAX_ID_BYTES,
  ) {}
  /** Resume point: the end cursor of the newest row counted. */
  cursor: string | undefined;
  /** Keys of the previous page's rows: a page that overlaps the last is not counted twice. */
  private lastPageKeys = new Set<string>();

  add(rows: readonly RotationRow[]): void {
    const keys = new Set<string>();
    for (const r of rows) {
      const key = `${r.nodeId}/${r.newPubKey}/${r.blockHeight}`;
      keys.add(key);
      if (this.lastPageKeys.has(key)) continue;
      const cur = this.byNode.get(r.nodeId);
      if (!cur && (this.byNode.size >= this.maxNodes || this.idBytes + r.nodeId.length > this.maxIdBytes)) this.overflow = true;
      else if (!cur) {
        this.byNode.set(r.nodeId, { count: 1, lastHeight: r.blockHeight });
        this.idBytes += r.nodeId.length;
      } else {
        cur.count += 1;
        if (r.blockHeight > cur.lastHeight) cur.lastHeight = r.blockHeight;
      }
    }
    if (rows.length > 0) this.lastPageKeys = keys;
  }

  clone(): RotationTally {
    const c = new RotationTally(this.maxNodes, this.maxIdBytes);
    for (const [k, v] of this.byNode) c.byNode.set(k, { ...v });
    c.idBytes = this.idBytes;
    c.cursor = this.cursor;
    c.overflow = this.overflow;
    c.lastPageKeys = this.lastPageKeys;
    return c;
  }

  samples(target: string): Sample[] {
    const out: Sample[] = [];
    for (const id of [...this.byNode.keys()].sort()) {
      const v = this.byNode.get(id)!;
      out.push({ metric: M.rotations, values: [target, id], value: v.count });
      out.push({ metric: M.rotationLastHeight, values: [target, id], value: Number(v.lastHeight) });
    }
    return out;
  }
}

export class KeyRotationsCollector implements Collector {
  private tally: RotationTally;
  private pathIndex = 0;

  /**
   * maxNodes: node ids tracked at most: one more than the network's series limit allows (two series
   * each), so that a tally that overflows also trips the runner's series limit, which flags and logs it.
   */
  constructor(private readonly maxNodes = Infinity) {
    this.tally = new RotationTally(maxNodes);
  }

  async collect(ctx: CollectContext): Promise<CollectResult> {
    try {
      return await this.walk(ctx);
    } catch (err) {
      if (err instanceof UpstreamHttpError && err.status === 404 && this.pathIndex === 0 && this.tally.cursor === undefined) {
        this.pathIndex = 1; // a node that only serves the specification's path
        return this.walk(ctx);
      }
      if (err instanceof UpstreamHttpError && err.status === 400 && this.tally.cursor !== undefined) {
        // The node no longer accepts our cursor (a different node behind the URL, a reset
        // database): start again from the beginning on the next poll.
        this.tally = new RotationTally(this.maxNodes);
      }
      throw err;
    }
  }

  private async walk(ctx: CollectContext): Promise<CollectResult> {
    const path = ROTATION_PATHS[this.pathIndex]!;
    // Work on a copy so a poll that fails half way leaves the previous counts intact.
    // A tally that overflowed does not resume: it walks the whole history again, so ids a node minted
    // disappear once it (or the node answering for the network) serves a sane history again.
    const next = this.tally.overflow ? new RotationTally(this.maxNodes) : this.tally.clone();
    const skips = new RowSkips();
    const result = await walkConnection(
      ctx,
      { path, key: 'rotations', endpoint: 'rotations', row: ROTATION_ROW, ...(next.cursor !== undefined ? { startAfter: next.cursor } : {}) },
      (nodes, at) => next.add(nodes.flatMap((n, i) => skips.row(() => parseRotation(n, at(i))) ?? [])),
    );
    next.cursor = result.lastCursor;
    this.tally = next;
    // A tally over its id count trips the series limit by itself; one over its id bytes says so.
    return { samples: next.samples(ctx.target), pages: result.pages, truncated: result.truncated, skipped: skips.list, limited: next.overflow };
  }
}

export default defineCollector({
  name: 'key_rotations',
  scope: 'network',
  title: 'key_rotations collector (`GET /api/v2/vega/keys/rotations`, every 60 s by default)',
  families: M,
  endpoints: { rotations: ROTATION_ROW },
  config: simpleCollectorConfig('60s', true),
  paginated: true,
  create: (_settings, deps) => new KeyRotationsCollector(deps.seriesLimit !== undefined ? Math.floor(deps.seriesLimit / 2) + 1 : Infinity),
});
