import { parseArgs } from 'node:util';
import { z } from 'zod';
import { ConfigError, loadConfig } from '../config/env';
import { buildContainer } from '../container';
import { emailSchema, passwordSchema } from '../http/schemas';
import { createLogger } from '../logger';
import { errorReason } from '../errors/loggable-error';

/** `npm run admin:create -- --email E --password P`: creates an admin in the configured database. */
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { email: { type: 'string' }, password: { type: 'string' } } });
  const input = z.object({ email: emailSchema, password: passwordSchema }).safeParse(values);
  if (!input.success) {
    console.error('usage: npm run admin:create -- --email admin@example.com --password <8-72 bytes>');
    for (const issue of input.error.issues) console.error(`  --${issue.path.join('.')}: ${issue.message}`);
    process.exit(2);
  }
  const config = loadConfig();
  const container = await buildContainer(config, createLogger({ level: 'warn' }));
  try {
    const outcome = await container.admins.ensureAdmin(input.data.email, input.data.password);
    console.log(outcome === 'created' ? `admin ${input.data.email} created` : `admin ${input.data.email} already exists (unchanged)`);
  } finally {
    await container.close();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : `admin:create failed: ${errorReason(err)}`);
  process.exit(1);
});
