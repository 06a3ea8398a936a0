import { sql } from 'drizzle-orm';
import { queryRows } from '../helpers/database-state';
import { eventually } from '../helpers/eventually';
import { bearer, createUser } from '../helpers/factories';
import { chargeSuccess, paidIntent, postWebhook, signedEvent, supplyTokens } from '../helpers/payment-fixtures';
import { testDatabase } from '../helpers/test-app';
import { withSandboxes } from '../helpers/with-sandboxes';

/**
 * The payment row refuses to change, as a broken disk or a lost connection mid-statement would:
 * the query that consumes the reference fails carrying its parameters, among them the provider's
 * payload (the buyer's e-mail, the card's authorization_code).
 */
const INSTALL_FAULT = [
  `create or replace function errors_in_logs_refuse() returns trigger language plpgsql as $$
   begin raise exception 'simulated storage failure'; end $$`,
  'drop trigger if exists errors_in_logs_refuse on payments',
  'create trigger errors_in_logs_refuse before update on payments for each row execute function errors_in_logs_refuse()',
];
const REMOVE_FAULT = ['drop trigger if exists errors_in_logs_refuse on payments', 'drop function if exists errors_in_logs_refuse()'];

const { provider, app } = withSandboxes({ app: { env: { WEBHOOK_RETRY_BASE_MS: '100' }, logLevel: 'trace' } });
beforeEach(async () => {
  await supplyTokens(app);
});
afterEach(async () => {
  // On the file's database, which outlives the test's app: the trigger would outlive it too.
  const database = await testDatabase();
  for (const statement of REMOVE_FAULT) await database.db.execute(sql.raw(statement));
});

async function installFault(): Promise<void> {
  for (const statement of INSTALL_FAULT) await app.container.database.db.execute(sql.raw(statement));
}

/** What the provider's payload holds that must never reach a log: the buyer's e-mail and the card's authorization code. */
function payloadSecrets(email: string, accessCode: string): string[] {
  return [email, `AUTH_${accessCode}`];
}

function leaks(logs: string[], secrets: string[]): string[] {
  return logs.filter((line) => secrets.some((s) => line.includes(s)) || /params:/.test(line));
}

describe('a database failure carrying the provider payload', () => {
  it('reaches no log through verify-payment, the callback page or the webhook inbox', async () => {
    const user = await createUser(app);
    const intent = await paidIntent(app, user, 30);
    const secrets = payloadSecrets(user.email, intent.access_code);
    await installFault();
    app.logs.length = 0;

    const verify = await app.http.post('/api/payments/verify-payment').set(bearer(user.token)).send({ reference: intent.reference });
    expect(verify.status).toBe(500);

    const callback = await app.http.get(`/api/payments/callback?trxref=${intent.reference}&reference=${intent.reference}`);
    expect(callback.status).toBe(500);

    const { body, signature } = signedEvent(chargeSuccess(intent.reference, 3000), provider.secretKey);
    await postWebhook(app, body, signature).expect(200);
    await eventually(async () => (app.logs.some((l) => l.includes('webhook settlement failed')) ? true : undefined), 'the inbox to log its failure');

    expect(leaks(app.logs, secrets).map((l) => l.slice(0, 160))).toEqual([]);
    // Each path did log the failure, by the database's message, without the values.
    const errorLines = app.logs.filter((l) => l.includes('simulated storage failure'));
    expect(errorLines.length).toBeGreaterThanOrEqual(3);
  });

  it('is not stored as the webhook event error either', async () => {
    const user = await createUser(app);
    const intent = await paidIntent(app, user, 30);
    await installFault();
    const { body, signature } = signedEvent(chargeSuccess(intent.reference, 3000), provider.secretKey);
    await postWebhook(app, body, signature).expect(200);
    const stored = await eventually(async () => {
      const rows = await queryRows<{ last_error: string | null }>(app.container.database, sql`select outcome as last_error from webhook_events`);
      return rows[0]?.last_error ?? undefined;
    }, 'the stored error');
    expect(stored).toContain('simulated storage failure');
    expect(leaks([stored], payloadSecrets(user.email, intent.access_code))).toEqual([]);
  });
});

