import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { lazyPlain } from '../../../src/exporter/process/threaded.js';

describe('the serving thread holds the gzip body only', () => {
  it('unzips the plain text on first use, once per snapshot', () => {
    const text = Buffer.from('vega_up{target="a"} 1\n'.repeat(1000));
    const body = lazyPlain(gzipSync(text), 7);
    expect(body.version).toBe(7);
    const first = body.plain;
    expect(first.equals(text)).toBe(true);
    expect(body.plain).toBe(first);
  });
});
