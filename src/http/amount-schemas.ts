import { z } from 'zod';
import { numberToDecimalText, parseTokenAmount } from '../domain/amounts';

/**
 * A token amount sent as a JSON number (the spec) or a decimal string, turned into exact stroops.
 * Positive, at most 7 decimals, at most 922337203685.4775807 (CONTRACT 5).
 */
export const tokenAmountSchema = z.union([z.number(), z.string().max(40)]).transform(toStroops);

function toStroops(value: number | string, ctx: z.RefinementCtx): bigint {
  const text = typeof value === 'number' ? numberToDecimalText(value, 7) : value.trim();
  const stroops = text === undefined ? undefined : parseTokenAmount(text);
  if (stroops === undefined) {
    // A JSON number past 15 significant digits is refused too (see numberToDecimalText): say how to send it.
    ctx.addIssue({
      code: 'custom',
      message:
        'must be a positive amount with at most 7 decimal places, at most 922337203685.4775807 (send amounts of more than 15 digits as a decimal string)',
    });
    return z.NEVER;
  }
  return stroops;
}

/**
 * A token amount that must come as a decimal string (create-asset, CONTRACT 5): a JSON number is
 * refused, so an issue of new money is never read through a binary float.
 */
export const tokenAmountStringSchema = z
  .string({ error: 'must be a positive decimal string such as "1000.5" (a JSON number is refused)' })
  .max(40)
  .transform(toStroops);

/** Naira: positive, at most 2 decimals; kobo = Naira x 100 exactly (string arithmetic, no floats). */
export const nairaAmountSchema = z
  .union([z.number(), z.string().max(30)])
  .transform((value, ctx) => {
    const text = typeof value === 'number' ? numberToDecimalText(value, 2) : value.trim();
    const match = text === undefined ? null : /^(\d{1,13})(?:\.(\d{1,2}))?$/.exec(text);
    const kobo = match ? BigInt(match[1]!) * 100n + BigInt((match[2] ?? '').padEnd(2, '0')) : 0n;
    if (kobo <= 0n || kobo > 100_000_000_000_00n) {
      ctx.addIssue({ code: 'custom', message: 'must be a positive Naira amount with at most 2 decimal places, at most 100000000000' });
      return z.NEVER;
    }
    return kobo;
  });
