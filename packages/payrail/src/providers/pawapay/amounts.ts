// Amounts as pawaPay reads them: a decimal string ("15", "15.5", "15.50")
// with at most the decimals the provider takes. Payrail rounded the received
// amount to those decimals when it quoted (amountDecimals), so this only
// writes it out; it never rounds.

/** `minor` units of a currency with `minorUnits` decimals, written with `decimals` decimals. Throws if that would drop a digit. */
export function amountText(minor: number, minorUnits: number, decimals: number): string {
  if (!Number.isSafeInteger(minor) || minor <= 0) throw new Error(`pawapay: the amount must be a positive whole number of minor units, got ${minor}`);
  if (decimals > minorUnits) throw new Error('pawapay: more decimals than the currency has');
  const dropped = 10 ** (minorUnits - decimals);
  if (minor % dropped !== 0) throw new Error(`pawapay: ${minor} minor units do not fit ${decimals} decimals (the quote should have rounded them)`);
  const scaled = String(minor / dropped);
  if (decimals === 0) return scaled;
  const padded = scaled.padStart(decimals + 1, '0');
  return `${padded.slice(0, -decimals)}.${padded.slice(-decimals)}`;
}

/**
 * The decimals to write `minor` with: the corridor's, or more when the
 * amount needs them (a quote made before amount_decimals was lowered), so it
 * is never rounded here. Null when it needs more than pawaPay takes at all.
 */
export function decimalsFor(minor: number, minorUnits: number, configured: number, maxDecimals: number): number | null {
  for (let decimals = configured; decimals <= minorUnits; decimals += 1) {
    if (minor % 10 ** (minorUnits - decimals) === 0) return decimals <= maxDecimals ? decimals : null;
  }
  return null;
}
