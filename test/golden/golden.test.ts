/**
 * The /metrics output for a fixed simulator seed and a frozen clock, against the file
 * scripts/golden.ts wrote (`npm run golden` only after an intended change, with the diff reviewed;
 * derive.test.ts checks a sample of its values against the simulator's records).
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { GOLDEN_FILE, produceGolden } from '../../scripts/golden.js';

it('the golden /metrics output is unchanged', async () => {
  const got = await produceGolden();
  const want = readFileSync(GOLDEN_FILE, 'utf8');
  // Line by line, so a failure shows which series moved.
  expect(got.split('\n')).toEqual(want.split('\n'));
}, 90_000);
