/** The reference copies under test/reference/ are the documents in ../shared/reference/, when those are present. */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const ORIGINALS = new URL('../../shared/reference/', import.meta.url);

describe.skipIf(!existsSync(ORIGINALS))('reference copies', () => {
  for (const name of ['query-service-spec.md', 'datanode-schema-v0.79.md'])
    it(`${name} is the original`, () => {
      expect(readFileSync(new URL(`reference/${name}`, import.meta.url), 'utf8')).toBe(readFileSync(new URL(name, ORIGINALS), 'utf8'));
    });
});
