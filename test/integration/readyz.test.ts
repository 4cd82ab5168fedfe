/**
 * Readiness against a node that never answers: /readyz does not wait a whole
 * poll deadline (48 s at a 1 m interval) for it.
 */
import { describe, expect, it } from 'vitest';
import { hostileNode } from '../helpers/hostile.js';
import { lifecycle } from '../helpers/lifecycle.js';
import { waitFor } from '../helpers/exporter.js';

const { defer, exporter } = lifecycle();

describe('/readyz with a silent node', () => {
  it('ready while the first poll still waits for its deadline', async () => {
    const node = await hostileNode({ '/statistics': () => {} }); // accepts, never answers
    defer(node.close);
    const e = await exporter(
      node.url,
      {
        collectors: {
          statistics: { interval: '1m' },
          markets: { enabled: false },
          key_rotations: { enabled: false },
          consistency: { enabled: false },
          network_history: { enabled: false },
          datanode_info: { enabled: false },
          history_segments: { enabled: false },
        },
      },
      'silent',
    );
    await waitFor(async () => (await fetch(`${e.url}/readyz`)).status === 200);
    // Ready while the first poll still waits for its 48 s deadline: readiness did not wait for it.
    expect(e.exporter.runners.find((r) => r.collector.name === 'statistics')!.state.runs).toBe(0);
  });
});
