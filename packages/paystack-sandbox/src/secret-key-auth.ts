import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';

function sha256(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * Accepts only `Authorization: Bearer <secretKey>`, answering like Paystack otherwise.
 * Both sides are hashed first so the comparison is constant-time whatever the lengths.
 */
export function requireSecretKey(secretKey: string): RequestHandler {
  const expected = sha256(secretKey);
  return (req, res, next) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
    const presented = match?.[1];
    if (presented !== undefined && timingSafeEqual(sha256(presented), expected)) {
      next();
      return;
    }
    res.status(401).json({ status: false, message: 'Invalid key' });
  };
}
