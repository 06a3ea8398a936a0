import {
  formatNairaForPeople,
  formatStroops,
  formatTokensForPeople,
  MAX_STROOPS,
  numberToDecimalText,
  parseLedgerAmount,
  parseTokenAmount,
  stroopsToNumber,
} from '../../src/domain/amounts';

describe('token amounts', () => {
  it.each([
    ['1', 10_000_000n],
    ['0.0000001', 1n],
    ['12.5', 125_000_000n],
    ['922337203685.4775807', MAX_STROOPS],
  ])('parses %s exactly', (text, stroops) => {
    expect(parseTokenAmount(text)).toBe(stroops);
  });

  it.each(['0', '0.0000000', '-1', '1.00000001', '922337203685.4775808', '1e5', ' 1', '1.', '.5', 'NaN', ''])('rejects %j', (text) => {
    expect(parseTokenAmount(text)).toBeUndefined();
  });

  it('turns JSON numbers into exact decimal text, refusing hidden digits', () => {
    expect(numberToDecimalText(20, 7)).toBe('20');
    expect(numberToDecimalText(0.1, 7)).toBe('0.1');
    expect(numberToDecimalText(1e-7, 7)).toBe('0.0000001');
    expect(numberToDecimalText(0.12345678, 7)).toBeUndefined();
    expect(numberToDecimalText(12.34, 2)).toBe('12.34');
    expect(numberToDecimalText(12.345, 2)).toBeUndefined();
    expect(numberToDecimalText(-1, 7)).toBeUndefined();
    expect(numberToDecimalText(Number.POSITIVE_INFINITY, 7)).toBeUndefined();
  });

  it('formats stroops as seven-decimal text and JSON numbers', () => {
    expect(formatStroops(125_000_000n)).toBe('12.5000000');
    expect(formatStroops(1n)).toBe('0.0000001');
    expect(stroopsToNumber(123_456_789n)).toBe(12.3456789);
  });
});

describe('amounts for people', () => {
  it.each([
    [0n, '₦0.00'],
    [1n, '₦0.01'],
    [10n, '₦0.10'],
    [99_999n, '₦999.99'],
    [100_000n, '₦1,000.00'],
    [150_050n, '₦1,500.50'],
    [123_456_789_012n, '₦1,234,567,890.12'],
    // int64's maximum: bigint arithmetic, no double anywhere
    [9_223_372_036_854_775_807n, '₦92,233,720,368,547,758.07'],
    [-150_050n, '-₦1,500.50'],
  ])('writes %p kobo as %s', (kobo, text) => {
    expect(formatNairaForPeople(kobo)).toBe(text);
  });

  it.each([
    [0n, '0.00 WLT'],
    [1n, '0.0000001 WLT'],
    [10_000_000n, '1.00 WLT'],
    [15_005_000_000n, '1,500.50 WLT'],
    [12_345_678n, '1.2345678 WLT'],
    [12_340_000n, '1.234 WLT'],
    [15_000_000_000n, '1,500.00 WLT'],
    [MAX_STROOPS, '922,337,203,685.4775807 WLT'],
    [MAX_STROOPS - 4_775_807n, '922,337,203,685.00 WLT'],
    [-15_005_000_000n, '-1,500.50 WLT'],
  ])('writes %p stroops as %s', (stroops, text) => {
    expect(formatTokensForPeople(stroops, 'WLT')).toBe(text);
  });

  it('never loses a stroop: the text reads back as the same amount', () => {
    for (const stroops of [1n, 9_999_999n, 10_000_001n, 123_456_789_012_345n, MAX_STROOPS]) {
      const decimal = formatTokensForPeople(stroops, 'WLT').replace(' WLT', '').replaceAll(',', '');
      expect(parseTokenAmount(decimal)).toBe(stroops);
    }
  });

  it.each([
    ['0.0000000', 0n],
    ['3086.4000000', 30_864_000_000n],
    ['922337203685.4775807', MAX_STROOPS],
  ])("reads the ledger's balance %s as stroops", (text, stroops) => {
    expect(parseLedgerAmount(text)).toBe(stroops);
  });

  it.each(['922337203685.4775808', '-1.0000000', '1.00000001', '', 'NaN'])('refuses %j as a ledger amount', (text) => {
    expect(parseLedgerAmount(text)).toBeUndefined();
  });
});
