import type { ServerResponse } from 'node:http';

/**
 * The headers helmet() 8 sets with its defaults, in its order, computed once: helmet ran a
 * dozen middlewares per request to set the same constant values. No page of the service sets
 * its own Content-Security-Policy today; one that needs another would set it after this (its
 * header replaces this one). tests/security/http-hardening.test.ts checks them.
 */
export const SECURITY_HEADERS: readonly (readonly [name: string, value: string])[] = Object.freeze(
  (
    [
      [
        'Content-Security-Policy',
        "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';frame-ancestors 'self';img-src 'self' data:;object-src 'none';script-src 'self';script-src-attr 'none';style-src 'self' https: 'unsafe-inline';upgrade-insecure-requests",
      ],
      ['Cross-Origin-Opener-Policy', 'same-origin'],
      ['Cross-Origin-Resource-Policy', 'same-origin'],
      ['Origin-Agent-Cluster', '?1'],
      ['Referrer-Policy', 'no-referrer'],
      ['Strict-Transport-Security', 'max-age=31536000; includeSubDomains'],
      ['X-Content-Type-Options', 'nosniff'],
      ['X-DNS-Prefetch-Control', 'off'],
      ['X-Download-Options', 'noopen'],
      ['X-Frame-Options', 'SAMEORIGIN'],
      ['X-Permitted-Cross-Domain-Policies', 'none'],
      ['X-XSS-Protection', '0'],
    ] as const
  ).map((header) => Object.freeze(header)),
);

export function setSecurityHeaders(res: ServerResponse): void {
  for (let i = 0; i < SECURITY_HEADERS.length; i++) {
    const [name, value] = SECURITY_HEADERS[i]!;
    res.setHeader(name, value);
  }
}
