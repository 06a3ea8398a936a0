import { sql } from 'drizzle-orm';
import { bonus, bonusCommand } from '../fixtures/bonus-kind';
import { FAST_JOURNAL } from '../helpers/bad-days';
import { queryRows } from '../helpers/database-state';
import { eventually } from '../helpers/eventually';
import { adminToken, bearer, createUser } from '../helpers/factories';
import { openJournal } from '../helpers/journal-fixtures';
import { ledgerBalance } from '../helpers/ledger-fixtures';
import { LEDGER_APIS } from '../helpers/sandboxes';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { withSandboxes } from '../helpers/with-sandboxes';

// A kind of write that exists only in the tests (tests/fixtures/bonus-kind.ts), added by one file
// and one registration, goes through the journal exactly once while the ledger API answers 504
// after applying it: the journal, the submitter, the sender and the reconciler needed nothing of
// it but what the kind says.

describe.each(LEDGER_APIS)('through %s', (api) => {
  const { ledger, provider } = withSandboxes({ app: false, ledger: { api } });
  let app: TestApp;

  beforeEach(async () => {
    app = await startTestApp({ ...ledger.env, ...provider.env, ...FAST_JOURNAL });
    app.container.ledgerModule.kinds.register(bonus);
    app.container.start();
    const admin = await adminToken(app);
    // Issued (200) or under way (202 on a busy machine: the journal finishes it).
    expect([200, 202]).toContain((await app.http.post('/api/ledger/create-asset').set(bearer(admin)).send({ assetCode: 'WLT', amount: '1000' })).status);
    await eventually(async () => ((await openJournal(app)) === 0 ? true : undefined), 'the supply to be issued', { intervalMs: 100 });
  });
  afterEach(async () => {
    ledger.faults.clear();
    await app.close();
  });

  it('writes a bonus once when the ledger answers 504 after applying it, and the audit agrees', async () => {
    const user = await createUser(app);
    // The bad day is armed by the bonus's own envelope, right before it is sent (as journal-faults'
    // faultOnWrite): no other write in flight (the user's activation) can take the fault instead.
    const { accounts, repository } = app.container.ledgerModule;
    const send = accounts.sender.send.bind(accounts.sender);
    let faultsWhenArmed: number | undefined;
    accounts.sender.send = async (envelopeId, tx, facts) => {
      if (faultsWhenArmed === undefined && (await repository.entriesOf(envelopeId)).some((e) => (e.kind as string) === bonus.name)) {
        faultsWhenArmed = ledger.faults.stats['apply-then-504'];
        ledger.faults.set({ mode: 'apply-then-504', next: 1 });
      }
      return send(envelopeId, tx, facts);
    };

    const result = await app.container.ledgerModule.bootstrap.write(bonusCommand({ userId: user.userId, to: user.ledgerPublicKey, stroops: 70_000_000n }));

    // The fault fired on the bonus's submission: the answer was unclear, the ledger had applied it.
    expect(faultsWhenArmed).toEqual(expect.any(Number));
    expect(ledger.faults.stats['apply-then-504']).toBe(faultsWhenArmed! + 1);
    expect(result.written).toBe(true);
    await eventually(async () => ((await openJournal(app)) === 0 ? true : undefined), 'the journal to settle', { intervalMs: 100 });
    expect(await ledgerBalance(ledger.url, user.ledgerPublicKey)).toBe('7.0000000');
    const entries = await queryRows<{ status: string }>(app.container.database, sql`select status from ledger_entries where kind = ${bonus.name}`);
    expect(entries).toEqual([{ status: 'confirmed' }]);
    expect((await app.container.audit()).discrepancies).toEqual([]);
  });
});
