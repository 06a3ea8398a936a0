/**
 * Where Paystack sends the buyer back: the merchant's `callback_url` with `trxref` and
 * `reference` appended. The merchant's own query and fragment are kept byte for byte (no
 * re-serialisation through URLSearchParams, which would re-encode them).
 */
export function callbackUrlWithReference(callbackUrl: string, reference: string): string {
  const hashAt = callbackUrl.indexOf('#');
  const base = hashAt === -1 ? callbackUrl : callbackUrl.slice(0, hashAt);
  const fragment = hashAt === -1 ? '' : callbackUrl.slice(hashAt);
  const separator = !base.includes('?') ? '?' : /[?&]$/.test(base) ? '' : '&';
  const encoded = encodeURIComponent(reference);
  return `${base}${separator}trxref=${encoded}&reference=${encoded}${fragment}`;
}
