import { callbackUrlWithReference } from '../src/callback-url';
import { escapeHtml, formatKoboAsNaira } from '../src/checkout-page';
import { paystackFeeKobo } from '../src/transaction';

describe('formatKoboAsNaira', () => {
  it.each([
    [0, '₦0.00'],
    [5, '₦0.05'],
    [50, '₦0.50'],
    [100, '₦1.00'],
    [123_456, '₦1,234.56'],
    [100_000_000, '₦1,000,000.00'],
    [Number.MAX_SAFE_INTEGER, '₦90,071,992,547,409.91'],
  ])('shows %d kobo as %s', (kobo, naira) => {
    expect(formatKoboAsNaira(kobo)).toBe(naira);
  });

  it('refuses values that are not kobo amounts', () => {
    expect(() => formatKoboAsNaira(1.5)).toThrow(RangeError);
    expect(() => formatKoboAsNaira(-1)).toThrow(RangeError);
  });
});

describe('escapeHtml', () => {
  it('neutralises every character that can open a tag or close an attribute', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });
});

describe('callbackUrlWithReference', () => {
  it.each([
    ['http://m.test/cb', 'http://m.test/cb?trxref=R1&reference=R1'],
    ['http://m.test/cb?a=1', 'http://m.test/cb?a=1&trxref=R1&reference=R1'],
    ['http://m.test/cb?', 'http://m.test/cb?trxref=R1&reference=R1'],
    ['http://m.test/cb?a=1&', 'http://m.test/cb?a=1&trxref=R1&reference=R1'],
    ['http://m.test/cb?a=%20x#done', 'http://m.test/cb?a=%20x&trxref=R1&reference=R1#done'],
  ])('turns %s into %s', (callback, expected) => {
    expect(callbackUrlWithReference(callback, 'R1')).toBe(expected);
  });

  it('encodes a reference that contains URL-significant characters', () => {
    expect(callbackUrlWithReference('http://m.test/cb', 'a=b')).toBe('http://m.test/cb?trxref=a%3Db&reference=a%3Db');
  });
});

describe('paystackFeeKobo', () => {
  it.each([
    [10_000, 150],
    [10_001, 151],
    [249_999, 3_750],
    [250_000, 13_750],
    [12_000_000, 190_000],
    [20_000_000, 200_000],
    [Number.MAX_SAFE_INTEGER, 200_000],
  ])('charges %d kobo a fee of %d kobo', (amount, fee) => {
    expect(paystackFeeKobo(amount)).toBe(fee);
  });
});
