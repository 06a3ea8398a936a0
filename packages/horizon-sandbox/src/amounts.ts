/**
 * Money on the ledger is an int64 count of stroops (1 XLM = 10^7 stroops). Everything inside the
 * sandbox is bigint so that no amount ever passes through a float; Horizon's 7-decimal strings
 * exist only at the edges.
 */

export const STROOPS_PER_UNIT = 10_000_000n;
export const MAX_INT64 = 2n ** 63n - 1n;

const AMOUNT_PATTERN = /^(-?)(\d+)(?:\.(\d{1,7}))?$/;

/** "10.5" -> 105000000n. Throws on anything that is not an exact 7-decimal amount. */
export function parseAmount(text: string): bigint {
  const match = AMOUNT_PATTERN.exec(text);
  if (!match) throw new Error(`not an amount: ${text}`);
  const [, sign, whole = '0', fraction = ''] = match;
  const stroops = BigInt(whole) * STROOPS_PER_UNIT + BigInt(fraction.padEnd(7, '0'));
  return sign === '-' ? -stroops : stroops;
}

/** 105000000n -> "10.5000000", the form Horizon uses for every balance and amount. */
export function formatAmount(stroops: bigint): string {
  const negative = stroops < 0n;
  const magnitude = negative ? -stroops : stroops;
  const whole = magnitude / STROOPS_PER_UNIT;
  const fraction = (magnitude % STROOPS_PER_UNIT).toString().padStart(7, '0');
  return `${negative ? '-' : ''}${whole}.${fraction}`;
}
