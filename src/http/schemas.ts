import { z } from 'zod';

/** Field rules shared by the route schemas (CONTRACT 5). */
export const usernameSchema = z
  .string()
  .trim()
  .min(3, 'must be at least 3 characters')
  .max(30, 'must be at most 30 characters')
  .regex(/^[A-Za-z0-9_.-]+$/, 'may contain only letters, digits, _ . and -');

export const emailSchema = z
  .string()
  .trim()
  .max(254, 'must be at most 254 characters')
  .pipe(z.email('must be a valid e-mail address'))
  .transform((e) => e.toLowerCase());

/** bcrypt reads only the first 72 bytes, so longer passwords would be silently truncated. */
export const passwordSchema = z
  .string()
  .min(8, 'must be at least 8 characters')
  .refine((p) => Buffer.byteLength(p, 'utf8') <= 72, 'must be at most 72 bytes');

export const nameSchema = z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters');

export const uuidParam = z.uuid('must be a UUID');

/** Payment references are the service's own (`wlt-<uuid>`) or Paystack's alphabet: nothing else reaches the database. */
export const paymentReferenceSchema = z.string().regex(/^[A-Za-z0-9_.=-]{1,100}$/);

export const paginationQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(1000).default(100),
    offset: z.coerce.number().int().min(0).max(10_000_000).default(0),
  })
  .strict();
