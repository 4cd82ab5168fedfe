/** Decimal scaling of integer amounts, exact on the decimal text until the one final float. */
import { scaleExact } from './convert.js';

/** value / 10^decimals; decimals may be negative (a position scale of -2 means hundreds). */
export function scaleDown(value: bigint | string, decimals: number): number {
  return scaleExact(value, decimals);
}

/** One 0/1 series per known state plus the current one if it is unknown: enums stay open. */
export function oneHot(known: readonly string[], current: string): [string, number][] {
  const states = known.includes(current) ? known : [...known, current];
  return states.map((s) => [s, s === current ? 1 : 0]);
}
