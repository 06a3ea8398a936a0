import pino, { type DestinationStream, type Logger } from 'pino';
import { serializeError } from './errors/loggable-error';

/**
 * Anything that could carry a credential is censored wherever it appears in a log object. This is
 * the second line of defence: request logs never include bodies or query strings in the first place.
 */
export const REDACTED_PATHS = [
  'password',
  'newPassword',
  'token',
  'ledgerSecretKey',
  'secret',
  'secretKey',
  'authorization',
  '*.password',
  '*.newPassword',
  '*.token',
  '*.ledgerSecretKey',
  '*.secret',
  '*.secretKey',
  '*.authorization',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-paystack-signature"]',
  'res.headers["set-cookie"]',
];

export function createLogger(options: { level: string; destination?: DestinationStream }): Logger {
  const pretty = !options.destination && process.stdout.isTTY && process.env.NODE_ENV !== 'production';
  const base = {
    level: options.level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    // Every logged error loses query parameters and driver details (src/errors/loggable-error.ts).
    serializers: { err: serializeError },
  };
  if (options.destination) return pino(base, options.destination);
  if (pretty) return pino({ ...base, transport: { target: 'pino-pretty', options: { colorize: true } } });
  return pino(base);
}

export type { Logger };
