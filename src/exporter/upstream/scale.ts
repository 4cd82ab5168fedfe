/** Decimal scaling of integer amounts, exact in BigInt until the final float. */

/** value / 10^decimals; decimals may be negative (a position scale of -2 means hundreds). */
export function scaleDown(value: bigint, decimals: number): number {
  if (decimals <= 0) return Number(value * 10n ** BigInt(-decimals));
  const unit = 10n ** BigInt(decimals);
  return Number(value / unit) + Number(value % unit) / Number(unit);
}

/** One 0/1 series per known state plus the current one if it is unknown: enums stay open. */
export function oneHot(known: readonly string[], current: string): [string, number][] {
  const states = known.includes(current) ? known : [...known, current];
  return states.map((s) => [s, s === current ? 1 : 0]);
}
