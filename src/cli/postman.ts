import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/env';
import { buildContainer } from '../container';
import { openDatabase } from '../db/client';
import { buildOpenApiDocument } from '../http/openapi';
import { postmanFiles } from '../http/openapi/postman';
import { createLogger } from '../logger';

const DOCS_DIR = path.resolve(__dirname, '../../docs');

/**
 * `npm run postman`: writes the Postman collection and environment into docs/, generated from
 * the OpenAPI document of the route tables. `-- --check` writes nothing and fails when the
 * committed files are out of date (for CI).
 *
 * The route tables are read from a container built with a fixed throwaway configuration (an
 * embedded database in a temp directory, outside systems on a closed port, nothing contacted), so
 * the output never depends on the local .env: the same tables give the same files on every machine.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { check: { type: 'boolean', default: false } } });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wallet-postman-'));
  const database = await openDatabase({ dataDir, poolSize: 1 });
  try {
    const config = loadConfig({
      NODE_ENV: 'development',
      DATA_DIR: dataDir,
      JWT_SECRET: crypto.randomBytes(32).toString('hex'),
      WALLET_ENCRYPTION_KEY: crypto.randomBytes(32).toString('base64'),
      HORIZON_URL: 'http://127.0.0.1:9',
      STELLAR_NETWORK_PASSPHRASE: 'Postman Generation Network',
      PAYSTACK_SECRET_KEY: 'sk_unused',
      PAYSTACK_BASE_URL: 'http://127.0.0.1:9',
      LOG_LEVEL: 'silent',
    });
    const container = await buildContainer(config, createLogger({ level: 'silent' }), { database });
    const files = postmanFiles(buildOpenApiDocument(container.routeGroups));
    await container.close();

    let stale = 0;
    for (const [name, text] of Object.entries(files)) {
      const target = path.join(DOCS_DIR, name);
      const current = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : undefined;
      if (current === text) {
        console.log(`${path.relative(process.cwd(), target)}: up to date`);
      } else if (values.check) {
        stale += 1;
        console.error(`${path.relative(process.cwd(), target)}: out of date, run npm run postman`);
      } else {
        fs.mkdirSync(DOCS_DIR, { recursive: true });
        fs.writeFileSync(target, text);
        console.log(`${path.relative(process.cwd(), target)}: written`);
      }
    }
    if (stale > 0) process.exitCode = 1;
  } finally {
    await database.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(`postman failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
