import crypto from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import type { Database, DatabaseHandle } from '../../src/db/client';
import { LedgerRejectedError } from '../../src/clients/ledger-errors';
import { JournalRepository } from '../../src/db/repositories/journal.repository';
import { TransactionRepository } from '../../src/db/repositories/transaction.repository';
import { ENTRY_KINDS, paymentReversals, payments, users, wallets } from '../../src/db/schema';
import { EnvelopeLifecycle } from '../../src/ledger/envelope-lifecycle';
import { standardKinds } from '../../src/ledger/kinds/registry';
import { resetDatabase } from '../helpers/database';
import { outboxOf } from '../helpers/outbox';
import { queryRows } from '../helpers/database-state';
import { testDatabase } from '../helpers/test-app';

// The entry kinds moved into src/ledger/kinds/ without a migration (`drizzle-kit generate`: no
// schema changes). Rows the journal wrote before, inserted here with plain SQL in the stored shape
// of that tree (kind names, statuses, the claim columns), are read and settled by the new code:
// every stored kind resolves in the registry, an open envelope of each kind with an effect settles
// with that effect on the row its entry stands for, and the record lists show what they showed.

let db: Database;
let database: DatabaseHandle;
const kinds = standardKinds();
const userId = crypto.randomUUID();

beforeEach(async () => {
  database = await testDatabase();
  await resetDatabase(database);
  db = database.db;
});

/** An envelope as the old tree stored it (sent once, still open), with its entries' ids. */
async function openEnvelope(hash: string, entries: { kind: string; fields?: string }[]): Promise<{ envelopeId: string; entryIds: string[] }> {
  const envelopeId = crypto.randomUUID();
  await db.execute(sql`insert into ledger_envelopes (id, hash, source_account, sequence, first_ledger, last_ledger, envelope_xdr, outer_hash, bid_stroops, status, submit_count)
    values (${envelopeId}, ${hash}, 'GSOURCE', 7, 1, 20, 'AAAA', ${`outer-${hash}`}, 200, 'submitted', 1)`);
  const entryIds: string[] = [];
  for (const e of entries) {
    const id = crypto.randomUUID();
    entryIds.push(id);
    await db.execute(sql`insert into ledger_entries (id, kind, status, envelope_id, ledger_transaction_id, from_public_key, to_public_key, amount_stroops, asset_code, user_id, payment_reference, reversal_id)
      values (${id}, ${e.kind}, 'submitted', ${envelopeId}, ${hash}, 'GFROM', 'GWALLET', 50000000, 'WLT', ${userId},
        ${e.kind === 'payment_mint' ? 'wlt-old-ref' : null}, ${e.kind === 'clawback' ? e.fields ?? null : null})`);
  }
  return { envelopeId, entryIds };
}

describe('a journal written before the entry kinds', () => {
  it('has every stored kind in the registry, and settles old open envelopes with each kind\'s effect', async () => {
    await db.insert(payments).values({ reference: 'wlt-old-ref', userId, amountKobo: 50_000n, status: 'minting', tokensStroops: 50_000_000n, destinationPublicKey: 'GWALLET' });
    const [reversal] = await db
      .insert(paymentReversals)
      .values({ key: 'refund:old', paymentReference: 'wlt-x', userId, cause: 'refund', amountKobo: 50_000n, tokensStroops: 50_000_000n, status: 'clawing' })
      .returning();
    await db.insert(users).values({ id: userId, username: 'old-timer', email: 'old@example.com', passwordHash: 'x', firstName: 'Old', lastName: 'Timer' });
    await db.insert(wallets).values({ userId, publicKey: 'GWALLET', secretCiphertext: 'sealed', keyId: 'k1', status: 'pending' });
    const confirmed = await openEnvelope('a'.repeat(64), [{ kind: 'payment_mint' }, { kind: 'activation' }, { kind: 'transfer' }]);
    const refused = await openEnvelope('b'.repeat(64), [{ kind: 'clawback', fields: reversal!.id }]);
    await db.update(paymentReversals).set({ entryId: refused.entryIds[0]! }).where(eq(paymentReversals.id, reversal!.id));

    const stored = (await queryRows<{ kind: string }>(database, sql`select distinct kind from ledger_entries`)).map((r) => r.kind);
    for (const kind of stored) expect(ENTRY_KINDS).toContain(kind);
    expect(stored.map((kind) => kinds.of(kind).name).sort()).toEqual([...stored].sort());

    const repository = new JournalRepository(db);
    const lifecycle = new EnvelopeLifecycle({ db, repository, kinds, events: outboxOf(database) });
    expect(await lifecycle.confirm(confirmed.envelopeId, 'a'.repeat(64), { ledger: 42 })).toBe(true);
    // Refused through the clawback kind's own rule: its operation refused is final.
    const over = await lifecycle.refused(refused.envelopeId, new LedgerRejectedError('tx_failed', ['op_not_clawback_enabled']), [{ entryId: refused.entryIds[0]!, kind: 'clawback', operations: 1 }]);
    expect([...(over?.keys() ?? [])]).toEqual([refused.entryIds[0]]);

    expect((await db.select().from(payments))[0]).toMatchObject({ status: 'minted', mintTxHash: 'a'.repeat(64) });
    expect((await db.select().from(wallets))[0]).toMatchObject({ status: 'active' });
    expect((await db.select().from(paymentReversals))[0]).toMatchObject({ status: 'done', clawedStroops: 0n, debtStroops: 50_000_000n });
    const records = await new TransactionRepository(db, kinds.recordKinds).userPage(userId, 10, 0);
    // What the lists showed then, and the clawback, a record since CONTRACT 12 (failed, as the ledger refused it).
    expect(records.total).toBe(3);
    expect(records.rows.map((r) => r[0]).sort()).toEqual([confirmed.entryIds[0], confirmed.entryIds[2], refused.entryIds[0]].sort());
    // A second settlement of the same envelope is refused: it was not open any more.
    expect(await lifecycle.confirm(confirmed.envelopeId, 'a'.repeat(64), { ledger: 42 })).toBe(false);
  });
});
