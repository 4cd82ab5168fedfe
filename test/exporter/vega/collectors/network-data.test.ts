/** The network_data collector beyond the golden fixtures: unset messages and isolation of a bad set. */
import { describe, expect, it } from 'vitest';
import { epochSamples, networkDataSamples } from '../../../../src/exporter/vega/collectors/network-data.js';
import { RowSkips } from '../../../../src/exporter/engine/rows.js';

const set = (total: number, inactive: number, maximum?: number): Record<string, unknown> => ({
  total,
  inactive,
  promoted: [],
  demoted: [],
  ...(maximum !== undefined ? { maximum } : {}),
});

describe('network_data', () => {
  it('unset nodeData and epoch are nothing known, not a failure', () => {
    expect(networkDataSamples('n', { nodeData: null })).toEqual([]);
    expect(epochSamples('n', { epoch: null })).toEqual([]);
  });

  it('a bad field leaves out its own series only, and is recorded', () => {
    const skips = new RowSkips();
    const s = networkDataSamples(
      'n',
      {
        nodeData: {
          stakedTotal: 'lots',
          totalNodes: 5,
          inactiveNodes: 0,
          tendermintNodes: set(5, 0, 5),
          ersatzNodes: { ...set(1, 0), total: 'x' },
          pendingNodes: set(0, 0),
        },
      },
      skips,
    );
    const got = s.map((x) => `${x.metric.name}{${x.values.slice(1).join(',')}} ${x.value}`);
    expect(got).toEqual([
      'vega_network_validators{all} 5',
      'vega_network_validators_inactive{all} 0',
      'vega_network_validators{tendermint} 5',
      'vega_network_validators_inactive{tendermint} 0',
      'vega_network_validators_maximum{tendermint} 5',
      'vega_network_validators{pending} 0',
      'vega_network_validators_inactive{pending} 0',
    ]);
    expect(skips.list.map((k) => k.field)).toEqual(['nodeData.ersatzNodes.total', 'nodeData.stakedTotal']);
  });
});
