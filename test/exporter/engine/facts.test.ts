/** Facts by key: typed reads and writes, unknown values absent, keys told apart by identity. */
import { describe, expect, it } from 'vitest';
import { Facts, defineFact } from '../../../src/exporter/engine/facts.js';

describe('Facts', () => {
  it('keeps what was set, leaves out undefined, and tells two keys of one name apart', () => {
    const height = defineFact<bigint>('height');
    const other = defineFact<bigint>('height');
    const version = defineFact<string>('version');
    const f = new Facts().with(height, 5n).with(version, undefined);
    expect(f.get(height)).toBe(5n);
    expect(f.get(version)).toBeUndefined();
    expect(f.get(other)).toBeUndefined();
    expect(f.size).toBe(1);
  });
});
