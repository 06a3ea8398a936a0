import pino from 'pino';

// The sandbox is a stand-in for an outside system, so it logs under its own name and never
// receives the service's logger: it must run the same way embedded or from its CLI.
export const sandboxLogger = pino({
  name: 'paystack-sandbox',
  level: process.env.LOG_LEVEL ?? 'info',
});
