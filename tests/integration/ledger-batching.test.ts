import { FeeBumpTransaction, Horizon, TransactionBuilder } from '@stellar/stellar-sdk';
import { sql } from 'drizzle-orm';
import { queryRows } from '../helpers/database-state';
import { userAwaitingActivation } from '../helpers/ledger-fixtures';
import { withSandboxes } from '../helpers/with-sandboxes';

const CLOSE_MS = 200;

const { ledger, app } = withSandboxes({ ledger: { ledgerCloseMs: CLOSE_MS }, app: { env: { BCRYPT_COST: '4' }, logLevel: 'warn', scope: 'file' } });
beforeAll(async () => {
  await app.container.ledgerModule.bootstrap.ready();
});

describe('batched wallet activation', () => {
  it('activates 300 wallets queued at once, many to an envelope, none over the 20 signatures an envelope holds', async () => {
    // Users are created without waiting on the ledger, then all activations are queued together.
    const users: string[] = [];
    for (let i = 0; i < 300; i++) users.push(await userAwaitingActivation(app));
    const results = await Promise.all(users.map((id) => app.container.activation.activateUser(id, { fresh: true })));

    expect(results.every(Boolean)).toBe(true);
    // Each activation carries the new wallet's signature and an envelope holds at most 20: the
    // activations share envelopes up to that limit, so 17 at the least. How close to that, and in
    // how few ledgers (3 with 8 channel accounts on an idle machine, once bounded here by 12), is a
    // speed that a busy machine lowers: the bench reports it. The test holds the rule.
    const carriers = await queryRows<{ envelope_xdr: string; n: number }>(
      app.container.database,
      sql`select e.envelope_xdr, count(*)::int as n from ledger_entries l join ledger_envelopes e on e.id = l.envelope_id
          where l.kind = 'activation' and l.status = 'confirmed' and l.user_id in ${users} group by e.id, e.envelope_xdr`,
    );
    expect(carriers.reduce((sum, c) => sum + Number(c.n), 0)).toBe(300);
    expect(carriers.some((c) => Number(c.n) > 1)).toBe(true);
    for (const { envelope_xdr } of carriers) {
      const envelope = TransactionBuilder.fromXDR(envelope_xdr, ledger.env.STELLAR_NETWORK_PASSPHRASE!);
      const inner = envelope instanceof FeeBumpTransaction ? envelope.innerTransaction : envelope;
      expect(inner.signatures.length).toBeLessThanOrEqual(20);
    }
    const server = new Horizon.Server(ledger.url, { allowHttp: true });
    const sample = await app.container.wallets.findByUserId(users[299]!);
    const account = await server.loadAccount(sample!.publicKey);
    expect(account.balances.some((b) => 'asset_code' in b && b.asset_code === 'WLT')).toBe(true);
  });
});
