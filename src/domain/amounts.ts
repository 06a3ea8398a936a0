/**
 * Token amounts are integer stroops (1 token = 10,000,000 stroops) inside the service: exact,
 * never floats. These helpers are the only place text or JSON numbers become stroops and back.
 */
export const STROOPS_PER_UNIT = 10_000_000n;
/** Stellar's largest amount: int64 max stroops. */
export const MAX_STROOPS = 9_223_372_036_854_775_807n;

/** Decimal digits every double represents exactly (DBL_DIG). */
const MAX_EXACT_DIGITS = 15;

const DECIMAL = /^(\d{1,12})(?:\.(\d{1,7}))?$/;

/** Parses "12.5" or "0.0000001" into stroops; undefined when it isn't a positive amount within limits. */
export function parseTokenAmount(text: string): bigint | undefined {
  const match = DECIMAL.exec(text);
  if (!match) return undefined;
  const stroops = BigInt(match[1]!) * STROOPS_PER_UNIT + BigInt((match[2] ?? '').padEnd(7, '0'));
  return stroops > 0n && stroops <= MAX_STROOPS ? stroops : undefined;
}

/**
 * A JSON number as its exact decimal text, or undefined when the number has more than
 * `maxDecimals` places or more than 15 significant digits. Round-tripping through toFixed
 * rejects numbers whose binary value hides extra digits.
 */
export function numberToDecimalText(value: number, maxDecimals: number): string | undefined {
  if (!Number.isFinite(value) || value <= 0) return undefined;
  const fixed = value.toFixed(maxDecimals);
  if (!/^\d+(\.\d+)?$/.test(fixed) || Number(fixed) !== value) return undefined;
  // Found by the hardening fuzz (tests/security/bad-input.test.ts): past 15 significant digits
  // the text above is the double's binary value, not what the client wrote, and it still
  // round-trips. 922337203685.4775808 (one stroop over the maximum) arrived as 922337203685.4775391
  // and create-asset issued that. A double holds any 15-digit decimal exactly; longer amounts
  // must come as decimal strings, which stay exact.
  const significant = fixed.replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  if (significant.length > MAX_EXACT_DIGITS) return undefined;
  return fixed.includes('.') ? fixed.replace(/\.?0+$/, '') : fixed;
}

/** Stroops as Stellar's 7-decimal text ("12.5000000"). */
export function formatStroops(stroops: bigint): string {
  const negative = stroops < 0n;
  const abs = negative ? -stroops : stroops;
  const text = `${abs / STROOPS_PER_UNIT}.${(abs % STROOPS_PER_UNIT).toString().padStart(7, '0')}`;
  return negative ? `-${text}` : text;
}

/** Stroops as a JSON number (the spec's `assetAmount`); the decimal text parses to the nearest double. */
export function stroopsToNumber(stroops: bigint): number {
  return Number(formatStroops(stroops));
}

/** Kobo as Naira with two decimals ("1500.50"), exact: no float touches the money. */
export function formatKobo(kobo: bigint): string {
  const sign = kobo < 0n ? '-' : '';
  const abs = kobo < 0n ? -kobo : kobo;
  return `${sign}${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`;
}

/**
 * Stellar's amount text, as Horizon and RPC report a balance ("3086.4000000", "0.0000000"), in
 * stroops; undefined when it is not such text. Zero is a balance, unlike a token amount to send.
 */
export function parseLedgerAmount(text: string): bigint | undefined {
  const match = DECIMAL.exec(text);
  if (!match) return undefined;
  const stroops = BigInt(match[1]!) * STROOPS_PER_UNIT + BigInt((match[2] ?? '').padEnd(7, '0'));
  return stroops <= MAX_STROOPS ? stroops : undefined;
}

/** Kobo as a buyer reads Naira: "₦1,500.50", thousands grouped, always two decimals, exact. */
export function formatNairaForPeople(kobo: bigint): string {
  const sign = kobo < 0n ? '-' : '';
  const abs = kobo < 0n ? -kobo : kobo;
  return `${sign}₦${groupThousands(abs / 100n)}.${(abs % 100n).toString().padStart(2, '0')}`;
}

/**
 * Stroops as a buyer reads tokens: "1,500.50 WLT". Thousands grouped, two decimals at least and
 * more only when the amount has them ("1.2345678 WLT", "0.0000001 WLT"): exact, never rounded.
 */
export function formatTokensForPeople(stroops: bigint, code: string): string {
  const sign = stroops < 0n ? '-' : '';
  const abs = stroops < 0n ? -stroops : stroops;
  const fraction = (abs % STROOPS_PER_UNIT).toString().padStart(7, '0').replace(/0+$/, '').padEnd(2, '0');
  return `${sign}${groupThousands(abs / STROOPS_PER_UNIT)}.${fraction} ${code}`;
}

/** 1500000n -> "1,500,000". */
function groupThousands(whole: bigint): string {
  return whole.toString().replace(/\B(?=(\d{3})+$)/g, ',');
}
