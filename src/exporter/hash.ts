/**
 * FNV-1a (32-bit) of a string's UTF-8 bytes: stable across processes, versions and machines, so
 * shard membership and schedule offsets never move for an unchanged name.
 */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (const b of Buffer.from(s, 'utf8')) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}
