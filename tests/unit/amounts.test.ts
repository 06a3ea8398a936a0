import { formatStroops, MAX_STROOPS, numberToDecimalText, parseTokenAmount, stroopsToNumber } from '../../src/domain/amounts';

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
