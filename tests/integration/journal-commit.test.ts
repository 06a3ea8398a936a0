import crypto from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import type { Database, DatabaseHandle } from '../../src/db/client';
import { JournalRepository, type NewEntry, type NewEnvelope } from '../../src/db/repositories/journal.repository';
import { idempotencyKeyBound, type IdempotencyClaim } from '../../src/db/repositories/idempotency.repository';
import { commitEntry, type Committed as CommitResult } from '../../src/ledger/entry-commit';
import { standardKinds } from '../../src/ledger/kinds/registry';
import { PaymentRepository } from '../../src/db/repositories/payment.repository';
import type { WithdrawalState } from '../../src/domain/withdrawal-lifecycle';
import { ApprovalRepository } from '../../src/db/repositories/approval.repository';
import { approvals, idempotencyKeys, ledgerEntries, ledgerEnvelopes, paymentReversals, payments, withdrawals } from '../../src/db/schema';
import { resetDatabase } from '../helpers/database';
import { outboxOf } from '../helpers/outbox';
import { testDatabase } from '../helpers/test-app';
import { testDatabaseUrl } from '../helpers/database';
import { eventually } from '../helpers/eventually';
import { queryRows } from '../helpers/database-state';
import { openDatabase } from '../../src/db/client';

// commitEntry takes an entry's claims (a request's key, its kind's claim: a payment reference, a
// reversal, an approval) and writes the entry in one transaction. Each race below is two commits sent at once on two
// connections of the pool: PostgreSQL makes the later one wait on the row the first claimed, and the
// loser must come back with a result that says why, having written nothing. Whichever of the two
// PostgreSQL lets in first, exactly one entry stands.

const LEASE_MS = 15_000;

let db: Database;
let database: DatabaseHandle;
let journal: JournalRepository;
beforeEach(async () => {
  database = await testDatabase();
  await resetDatabase(database);
  db = database.db;
  journal = new JournalRepository(db);
});

const kinds = standardKinds();
/** The journal's commit of `entry`, with the request's key when given. */
const commit = (e: NewEntry, key?: IdempotencyClaim) => commitEntry({ db, repository: journal, leaseMs: LEASE_MS }, kinds.of(e.kind), e, key);

function entry(kind: NewEntry['kind'], fields: Partial<NewEntry> = {}): NewEntry {
  return { kind, userId: crypto.randomUUID(), fromPublicKey: 'GFROM', toPublicKey: 'GTO', amountStroops: 70_000_000n, assetCode: 'WLT', ...fields };
}

/** The two results, the committed one first; fails unless exactly one committed. */
function oneWinner(results: CommitResult[]): [Extract<CommitResult, { committed: true }>, Extract<CommitResult, { committed: false }>] {
  const winners = results.filter((r) => r.committed);
  const losers = results.filter((r) => !r.committed);
  expect([winners.length, losers.length]).toEqual([1, 1]);
  return [winners[0] as Extract<CommitResult, { committed: true }>, losers[0] as Extract<CommitResult, { committed: false }>];
}

/** A payment the provider confirmed (paid), whose reference a mint may consume. */
async function paidPayment(): Promise<{ reference: string; userId: string }> {
  const repo = new PaymentRepository(db, outboxOf(database));
  const reference = `wlt-${crypto.randomUUID()}`;
  const userId = crypto.randomUUID();
  await repo.insertInitialized({ reference, userId, amountKobo: 50_000n }, 0);
  await repo.recordPaid(reference, { status: 'success' });
  return { reference, userId };
}

/** Backends of this database waiting for a row or transaction lock. */
async function lockWaiters(): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    await testDatabase(),
    sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and wait_event in ('transactionid', 'tuple')`,
  );
  return row?.n ?? 0;
}

async function entries(): Promise<(typeof ledgerEntries.$inferSelect)[]> {
  return db.select().from(ledgerEntries);
}

describe('commitEntry: one entry per claim, whoever races', () => {
  it('binds one Idempotency-Key to one entry; the other request learns the entry that won and writes nothing', async () => {
    const key = { callerId: crypto.randomUUID(), route: 'ledger.transfer', key: 'retry-me', requestHash: 'h1' };
    const transfer = entry('transfer');

    const [won, lost] = oneWinner(await Promise.all([commit(transfer, key), commit(transfer, key)]));

    expect(lost).toMatchObject({ reason: 'key_taken', key: { entryId: won.entry.id, requestHash: 'h1' } });
    expect((await entries()).map((e) => e.id)).toEqual([won.entry.id]);
    expect((await db.select().from(idempotencyKeys)).map((k) => k.entryId)).toEqual([won.entry.id]);
  });

  it('holds the key it lost to until its transaction ends: dropping that entry (its key goes with it) waits, so the loser never commits without a key', async () => {
    const key = { callerId: crypto.randomUUID(), route: 'ledger.transfer', key: 'dropped-meanwhile', requestHash: 'h1' };
    const first = await commit(entry('transfer'), key);
    if (!first.committed) throw new Error('the first commit must win');

    // A retry with the same key, stopped right after it learned the key is taken: the first
    // request's entry is dropped unsent meanwhile (JournalRepository.abandon, on another connection).
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let learned!: (taken: unknown) => void;
    const learnedTaken = new Promise<unknown>((resolve) => (learned = resolve));
    const retry = db.transaction(async (tx) => {
      learned(await idempotencyKeyBound(tx, key, crypto.randomUUID()));
      await held;
    });
    let dropSettled = false;
    let drop: Promise<boolean> | undefined;
    try {
      expect(await learnedTaken).toMatchObject({ entryId: first.entry.id });
      drop = db.transaction((tx) => journal.abandon(tx, first.entry.id)).finally(() => (dropSettled = true));
      // The drop waits on the key's row lock, held by the retry's transaction (unlocked, it finishes at once).
      await eventually(async () => (dropSettled || (await lockWaiters()) > 0 ? true : undefined), 'the drop to finish or to wait on the key');
      expect(dropSettled).toBe(false);
      expect((await db.select().from(idempotencyKeys)).map((k) => k.entryId)).toEqual([first.entry.id]);
    } finally {
      release();
      await retry;
    }
    await expect(drop).resolves.toBe(true);
    expect(await db.select().from(idempotencyKeys)).toEqual([]);
  });

  it("consumes a paid payment's reference once: the other mint is told it was claimed, and the payment names the winner's mint", async () => {
    const { reference, userId } = await paidPayment();
    const mints = [
      entry('payment_mint', { userId, paymentReference: reference, toPublicKey: 'GWALLET-A', amountStroops: 5_000_000_000n }),
      entry('payment_mint', { userId, paymentReference: reference, toPublicKey: 'GWALLET-B', amountStroops: 4_000_000_000n }),
    ];

    const [won, lost] = oneWinner(await Promise.all(mints.map((m) => commit(m))));

    expect(lost).toEqual({ committed: false, reason: 'claimed' });
    expect((await entries()).map((e) => e.id)).toEqual([won.entry.id]);
    const [payment] = await db.select().from(payments).where(eq(payments.reference, reference));
    expect(payment).toMatchObject({ status: 'minting', destinationPublicKey: won.entry.toPublicKey, tokensStroops: won.entry.amountStroops });
  });

  it('never consumes a reference the provider has not confirmed (still initialized): nothing is written', async () => {
    const repo = new PaymentRepository(db, outboxOf(database));
    const reference = `wlt-${crypto.randomUUID()}`;
    await repo.insertInitialized({ reference, userId: crypto.randomUUID(), amountKobo: 50_000n }, 0);

    expect(await commit(entry('payment_mint', { paymentReference: reference }))).toEqual({ committed: false, reason: 'claimed' });
    expect(await entries()).toEqual([]);
    expect((await db.select().from(payments).where(eq(payments.reference, reference)))[0]?.status).toBe('initialized');
  });

  it("lets one of ten mints at once consume a paid reference, the claim and the insert one statement", async () => {
    const { reference, userId } = await paidPayment();

    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => commit(entry('payment_mint', { userId, paymentReference: reference, toPublicKey: `GWALLET-${i}` }))));

    expect(results.filter((r) => r.committed)).toHaveLength(1);
    expect(results.filter((r) => !r.committed)).toEqual(Array.from({ length: 9 }, () => ({ committed: false, reason: 'claimed' })));
    expect(await entries()).toHaveLength(1);
  });

  it('writes nothing, the claim included, when a live mint already stands for a reference this caller claimed (a broken invariant fails whole)', async () => {
    const { reference, userId } = await paidPayment();
    // A live mint for the reference while the payment still says paid: only a bug could leave this.
    const stray = await journal.insertEntryAlone({ ...entry('payment_mint', { userId, paymentReference: reference }), id: crypto.randomUUID() }, LEASE_MS);
    expect(stray).toBeDefined();

    const refused = await commit(entry('payment_mint', { userId, paymentReference: reference, toPublicKey: 'GWALLET' })).catch((err: unknown) => err);
    // PostgreSQL's unique_violation, under drizzle's "Failed query".
    expect(refused).toMatchObject({ cause: { code: '23505' } });

    expect((await entries()).map((e) => e.id)).toEqual([stray!.id]);
    const [payment] = await db.select().from(payments).where(eq(payments.reference, reference));
    expect(payment).toMatchObject({ status: 'paid', tokensStroops: null, destinationPublicKey: null });
  });

  it('takes a waiting reversal for one clawback; the reversal names that entry', async () => {
    const [reversal] = await db
      .insert(paymentReversals)
      .values({ key: 'refund:1', paymentReference: 'wlt-x', userId: crypto.randomUUID(), cause: 'refund', amountKobo: 50_000n, tokensStroops: 5_000_000_000n })
      .returning();
    const clawback = entry('clawback', { reversalId: reversal!.id });

    const [won, lost] = oneWinner(await Promise.all([commit(clawback), commit(clawback)]));

    expect(lost).toEqual({ committed: false, reason: 'claimed' });
    expect((await entries()).map((e) => e.id)).toEqual([won.entry.id]);
    expect((await db.select().from(paymentReversals))[0]).toMatchObject({ status: 'clawing', entryId: won.entry.id });
  });

  /** A withdrawal of 7 tokens (7 Naira) from GWALLET, as the request records it, standing in `status`. */
  async function withdrawalIn(status: WithdrawalState) {
    const id = crypto.randomUUID();
    const [row] = await db
      .insert(withdrawals)
      .values({
        id,
        userId: crypto.randomUUID(),
        payoutAccountId: crypto.randomUUID(),
        recipientCode: 'RCP_x',
        bankName: 'Guaranty Trust Bank',
        accountNumber: '0123456789',
        accountName: 'A B',
        walletPublicKey: 'GWALLET',
        amountStroops: 70_000_000n,
        nairaKobo: 700n,
        reference: `wdl-${id}`,
        idempotencyKey: 'k',
        requestHash: 'h',
        status,
      })
      .returning();
    return row!;
  }
  const withdrawalStatus = async (id: string) => (await db.select().from(withdrawals).where(eq(withdrawals.id, id)))[0]?.status;

  it('takes a requested withdrawal for one debit of its tokens; the other debit is told it was claimed, and the withdrawal is debiting', async () => {
    const w = await withdrawalIn('requested');
    const debit = entry('withdrawal', { userId: w.userId, withdrawalId: w.id, fromPublicKey: w.walletPublicKey, toPublicKey: 'GDISTRIBUTION', amountStroops: w.amountStroops });

    const [won, lost] = oneWinner(await Promise.all([commit(debit), commit(debit)]));

    expect(lost).toEqual({ committed: false, reason: 'claimed' });
    expect((await entries()).map((e) => e.id)).toEqual([won.entry.id]);
    expect(await withdrawalStatus(w.id)).toBe('debiting');
  });

  it('takes a withdrawal owed its tokens back for one refund; the other refund is told it was claimed, and the withdrawal is refunding', async () => {
    const w = await withdrawalIn('refund_due');
    const refund = entry('withdrawal_refund', { userId: w.userId, withdrawalId: w.id, fromPublicKey: 'GDISTRIBUTION', toPublicKey: w.walletPublicKey, amountStroops: w.amountStroops });

    const [won, lost] = oneWinner(await Promise.all([commit(refund), commit(refund)]));

    expect(lost).toEqual({ committed: false, reason: 'claimed' });
    expect((await entries()).map((e) => e.id)).toEqual([won.entry.id]);
    expect(await withdrawalStatus(w.id)).toBe('refunding');
  });

  describe("an approved mint or issue takes its approval (MINT_APPROVAL_THRESHOLD)", () => {
    async function approval(status: 'pending' | 'approved', action: 'mint' | 'issue' = 'mint') {
      const [row] = await db
        .insert(approvals)
        .values({ action, userId: crypto.randomUUID(), amountStroops: 1_500_000_000n, assetCode: 'WLT', requestedBy: crypto.randomUUID(), status, decidedBy: crypto.randomUUID() })
        .returning();
      return row!;
    }
    const approvalOf = async (id: string) => (await db.select().from(approvals).where(eq(approvals.id, id)))[0]!;

    it.each(['admin_mint', 'issue'] as const)('commits one %s per approval; the other approver is told it was claimed, and the approval names the winner', async (kind) => {
      const approved = await approval('approved', kind === 'issue' ? 'issue' : 'mint');
      const written = entry(kind, { approvalId: approved.id, amountStroops: approved.amountStroops });

      const [won, lost] = oneWinner(await Promise.all([commit(written), commit(written)]));

      expect(lost).toEqual({ committed: false, reason: 'claimed' });
      expect((await entries()).map((e) => e.id)).toEqual([won.entry.id]);
      expect(await approvalOf(approved.id)).toMatchObject({ status: 'approved', entryId: won.entry.id });
    });

    it('takes no approval that is not approved: nothing is written', async () => {
      const pending = await approval('pending');
      expect(await commit(entry('admin_mint', { approvalId: pending.id }))).toEqual({ committed: false, reason: 'claimed' });
      expect(await entries()).toEqual([]);
      expect(await approvalOf(pending.id)).toMatchObject({ status: 'pending', entryId: null });
    });

    it('claims nothing for a mint or issue without an approval (below the threshold): each commits', async () => {
      const results = await Promise.all([commit(entry('admin_mint')), commit(entry('admin_mint')), commit(entry('issue')), commit(entry('issue'))]);
      expect(results.map((r) => r.committed)).toEqual([true, true, true, true]);
    });

    it('frees an approval whose entry was dropped unsent: released once, then written again', async () => {
      const repo = new ApprovalRepository(db);
      const approved = await approval('approved');
      const first = await commit(entry('admin_mint', { approvalId: approved.id }));
      if (!first.committed) throw new Error('the first entry was not committed');
      expect(await db.transaction((tx) => journal.abandon(tx, first.entry.id))).toBe(true);

      await Promise.all([repo.released(approved.id, first.entry.id), repo.released(approved.id, first.entry.id)]);
      expect(await approvalOf(approved.id)).toMatchObject({ status: 'approved', entryId: null });
      const again = await commit(entry('admin_mint', { approvalId: approved.id }));
      expect(again.committed).toBe(true);
      // A late release naming the dropped entry leaves the new one alone.
      await repo.released(approved.id, first.entry.id);
      expect((await approvalOf(approved.id)).entryId).toBe((again as { entry: { id: string } }).entry.id);
    });
  });

  it("answers a wallet's second live activation as `live` rather than failing, and allows a new one once the first failed", async () => {
    const userId = crypto.randomUUID();
    const activation = entry('activation', { userId, assetCode: 'XLM', amountStroops: 0n });

    const [won, lost] = oneWinner(await Promise.all([commit(activation), commit(activation)]));
    expect(lost).toEqual({ committed: false, reason: 'live' });

    await db.update(ledgerEntries).set({ status: 'failed', failureCode: 'op_underfunded' }).where(eq(ledgerEntries.id, won.entry.id));
    const again = await commit(activation);
    expect(again.committed).toBe(true);
    expect((await entries()).map((e) => e.status).sort()).toEqual(['failed', 'pending']);
  });
});

// JournalRepository.attach stores a signed envelope with its entries before it is sent. Two
// processes may build envelopes for the same pending entries (each took them in its own claim);
// the journal must hold each entry in one open envelope at most, and say to the loser what it lost.
describe('JournalRepository.attach: an entry rides in one open envelope, whoever races', () => {
  function envelope(hash: string): NewEnvelope {
    return { hash, sourceAccount: 'GSOURCE', sequence: 7n, firstLedger: 1, lastLedger: 20, envelopeXdr: `xdr-${hash}`, outerHash: `outer-${hash}`, bidStroops: 200n, bidLedger: 1 };
  }
  async function pendingEntries(n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const result = await commit(entry('transfer'));
      if (!result.committed) throw new Error('the fixture entry was not committed');
      ids.push(result.entry.id);
    }
    return ids;
  }
  const envelopeOf = async (id: string) => (await db.select().from(ledgerEntries).where(eq(ledgerEntries.id, id)))[0]!.envelopeId;

  it('stores one of two envelopes racing for overlapping entries; the other stores nothing and names what it lost', async () => {
    // Both attaches on connections already open, many times over, so their transactions overlap.
    await Promise.all([1, 2].map(() => db.execute(sql`select pg_sleep(0.05)`)));
    for (let race = 0; race < 8; race++) {
      const [a, b, c] = await pendingEntries(3);
      const one = envelope(`h-one-${race}`);
      const results = await Promise.all([journal.attach(one, [a!, b!], LEASE_MS), journal.attach(envelope(`h-two-${race}`), [c!, b!], LEASE_MS)]);

      const stored = results.filter((r): r is { envelopeId: string } => 'envelopeId' in r);
      expect({ race, stored: stored.length, lost: results.filter((r) => 'lost' in r) }).toEqual({ race, stored: 1, lost: [{ lost: [b!] }] });
      const [winner] = await db.select().from(ledgerEnvelopes).where(eq(ledgerEnvelopes.id, stored[0]!.envelopeId));
      // The loser's other entry stays free for a new envelope; the shared one rides in the winner's.
      const winnerTook = winner!.hash === one.hash ? [a!, b!] : [c!, b!];
      for (const id of [a!, b!, c!]) expect(await envelopeOf(id)).toBe(winnerTook.includes(id) ? winner!.id : null);
    }
    expect(await db.select().from(ledgerEnvelopes)).toHaveLength(8);
  });

  it('stores the envelope whole (its fields, the defaults, its next check a lease ahead) and the entries name it', async () => {
    const [a, b] = await pendingEntries(2);
    const stored = (await journal.attach({ ...envelope('h-whole'), sequence: 2n ** 62n + 5n, firstLedger: undefined, bidLedger: undefined }, [b!, a!, b!], LEASE_MS)) as { envelopeId: string };
    const [row] = await db.select().from(ledgerEnvelopes).where(eq(ledgerEnvelopes.id, stored.envelopeId));
    expect(row).toMatchObject({
      hash: 'h-whole',
      sourceAccount: 'GSOURCE',
      sequence: 2n ** 62n + 5n,
      firstLedger: null,
      lastLedger: 20,
      envelopeXdr: 'xdr-h-whole',
      outerHash: 'outer-h-whole',
      bidStroops: 200n,
      bidLedger: null,
      priorOuterHashes: [],
      bumps: 0,
      status: 'pending',
      submitCount: 0,
      ledger: null,
      failure: null,
    });
    expect(row!.nextCheckAt.getTime() - row!.createdAt.getTime()).toBe(LEASE_MS);
    for (const id of [a!, b!]) {
      const [e] = await db.select().from(ledgerEntries).where(eq(ledgerEntries.id, id));
      expect(e).toMatchObject({ envelopeId: stored.envelopeId, ledgerTransactionId: 'h-whole', status: 'pending' });
    }
  });

  it('puts every entry in at most one envelope when six attach overlapping batches at once, without a deadlock', async () => {
    await Promise.all([1, 2, 3, 4, 5, 6].map(() => db.execute(sql`select pg_sleep(0.05)`)));
    for (let race = 0; race < 5; race++) {
      const ids = await pendingEntries(8);
      // Batches of three overlapping their neighbours, given in no particular order.
      const batches = Array.from({ length: 6 }, (_, i) => [ids[(i * 5) % 8]!, ids[(i * 5 + 3) % 8]!, ids[(i * 5 + 6) % 8]!]);
      const results = await Promise.all(batches.map((batch, i) => journal.attach(envelope(`h-six-${race}-${i}`), batch, LEASE_MS)));
      const taken = new Map<string, string>();
      results.forEach((r, i) => {
        if ('envelopeId' in r) for (const id of batches[i]!) taken.set(id, r.envelopeId);
        else expect(r).toHaveProperty('lost');
      });
      expect(taken.size).toBe(results.filter((r) => 'envelopeId' in r).length * 3); // no entry in two stored envelopes
      for (const id of ids) expect(await envelopeOf(id)).toBe(taken.get(id) ?? null);
    }
  });

  it('stores nothing for an envelope the journal already holds (the same inner transaction built twice)', async () => {
    const [a, b] = await pendingEntries(2);
    const first = await journal.attach(envelope('h-same'), [a!], LEASE_MS);
    expect(first).toHaveProperty('envelopeId');

    expect(await journal.attach(envelope('h-same'), [b!], LEASE_MS)).toEqual({ duplicate: 'h-same' });
    expect(await db.select().from(ledgerEnvelopes)).toHaveLength(1);
    expect(await envelopeOf(b!)).toBeNull();
  });

  it('moves an entry out of a failed envelope, never out of an open one', async () => {
    const [a] = await pendingEntries(1);
    const first = (await journal.attach(envelope('h-first'), [a!], LEASE_MS)) as { envelopeId: string };
    expect(await journal.attach(envelope('h-second'), [a!], LEASE_MS)).toEqual({ lost: [a!] });

    await db.update(ledgerEnvelopes).set({ status: 'failed' }).where(eq(ledgerEnvelopes.id, first.envelopeId));
    const second = await journal.attach(envelope('h-third'), [a!], LEASE_MS);
    expect(second).toHaveProperty('envelopeId');
    expect(await envelopeOf(a!)).toBe((second as { envelopeId: string }).envelopeId);
  });
});

describe('markSubmitted: each send counted, the entries submitted with the first', () => {
  function envelope(): NewEnvelope {
    const hash = crypto.randomBytes(32).toString('hex');
    return { hash, sourceAccount: 'GSOURCE', sequence: 7n, firstLedger: 10, lastLedger: 40, envelopeXdr: 'AAAA', outerHash: hash, bidStroops: 200n, bidLedger: undefined };
  }

  it('counts every send, moves the entries on the first only, and refuses an envelope no longer open', async () => {
    const first = (await commit(entry('transfer'))) as Extract<CommitResult, { committed: true }>;
    const second = (await commit(entry('transfer'))) as Extract<CommitResult, { committed: true }>;
    const attached = await journal.attach(envelope(), [first.entry.id, second.entry.id], LEASE_MS);
    if (!('envelopeId' in attached)) throw new Error(`not attached: ${JSON.stringify(attached)}`);
    const { envelopeId } = attached;
    const statuses = async () => (await entries()).map((e) => e.status);
    expect(await statuses()).toEqual(['pending', 'pending']);

    expect(await journal.markSubmitted(envelopeId)).toBe(1);
    expect(await statuses()).toEqual(['submitted', 'submitted']);
    // A later send counts but moves no entry: one the lifecycle set back to pending stays so.
    await db.update(ledgerEntries).set({ status: 'pending' }).where(eq(ledgerEntries.id, second.entry.id));
    expect(await journal.markSubmitted(envelopeId)).toBe(2);
    expect((await entries()).find((e) => e.id === second.entry.id)?.status).toBe('pending');
    const [stored] = await db.select().from(ledgerEnvelopes).where(eq(ledgerEnvelopes.id, envelopeId));
    expect(stored).toMatchObject({ status: 'submitted', submitCount: 2 });

    await db.update(ledgerEnvelopes).set({ status: 'confirmed' }).where(eq(ledgerEnvelopes.id, envelopeId));
    await expect(journal.markSubmitted(envelopeId)).resolves.toBeUndefined();
    expect((await db.select().from(ledgerEnvelopes).where(eq(ledgerEnvelopes.id, envelopeId)))[0]).toMatchObject({ status: 'confirmed', submitCount: 2 });
  });

  it('counts sends made at once exactly: ten concurrent marks number themselves 1 to 10', async () => {
    const only = (await commit(entry('transfer'))) as Extract<CommitResult, { committed: true }>;
    const attached = await journal.attach(envelope(), [only.entry.id], LEASE_MS);
    if (!('envelopeId' in attached)) throw new Error(`not attached: ${JSON.stringify(attached)}`);
    const counts = await Promise.all(Array.from({ length: 10 }, () => journal.markSubmitted(attached.envelopeId)));
    expect([...counts].sort((a, b) => a! - b!)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });
});

describe('confirmEnvelopeAlone: one statement for entries whose kinds change nothing else', () => {
  function envelope(): NewEnvelope {
    const hash = crypto.randomBytes(32).toString('hex');
    return { hash, sourceAccount: 'GSOURCE', sequence: 9n, firstLedger: 10, lastLedger: 40, envelopeXdr: 'AAAA', outerHash: hash, bidStroops: 200n, bidLedger: undefined };
  }
  async function stored(...kinds: NewEntry['kind'][]): Promise<{ envelopeId: string; entryIds: string[] }> {
    const entryIds: string[] = [];
    for (const kind of kinds) entryIds.push(((await commit(entry(kind))) as Extract<CommitResult, { committed: true }>).entry.id);
    const attached = await journal.attach(envelope(), entryIds, LEASE_MS);
    if (!('envelopeId' in attached)) throw new Error(`not attached: ${JSON.stringify(attached)}`);
    return { envelopeId: attached.envelopeId, entryIds };
  }
  const applied = { ledger: 12, feeCharged: 300n, hash: 'f'.repeat(64) };
  const envelopeRow = async (id: string) => (await db.select().from(ledgerEnvelopes).where(eq(ledgerEnvelopes.id, id)))[0];
  const entryStatuses = async (ids: string[]) => (await entries()).filter((e) => ids.includes(e.id)).map((e) => [e.status, e.ledger]);

  it('confirms the envelope and its open entries together', async () => {
    const { envelopeId, entryIds } = await stored('transfer', 'transfer');
    await journal.markSubmitted(envelopeId);
    await expect(journal.confirmEnvelopeAlone(envelopeId, applied, kinds.confirming)).resolves.toBe('confirmed');
    expect(await envelopeRow(envelopeId)).toMatchObject({ status: 'confirmed', ledger: 12, feeCharged: 300n, outerHash: applied.hash });
    expect(await entryStatuses(entryIds)).toEqual([
      ['confirmed', 12],
      ['confirmed', 12],
    ]);
    // Settled already: a second confirmation changes nothing and says so.
    await expect(journal.confirmEnvelopeAlone(envelopeId, { ...applied, ledger: 13 }, kinds.confirming)).resolves.toBe('not_open');
    expect(await envelopeRow(envelopeId)).toMatchObject({ status: 'confirmed', ledger: 12 });
  });

  it('changes nothing when an entry is of a kind with effects (an activation makes its wallet active): the caller confirms in a transaction', async () => {
    expect(kinds.confirming).toEqual(expect.arrayContaining(['activation', 'payment_mint']));
    expect(kinds.confirming).not.toContain('transfer');
    const { envelopeId, entryIds } = await stored('transfer', 'activation');
    await journal.markSubmitted(envelopeId);
    await expect(journal.confirmEnvelopeAlone(envelopeId, applied, kinds.confirming)).resolves.toBe('with_effects');
    expect(await envelopeRow(envelopeId)).toMatchObject({ status: 'submitted', ledger: null });
    expect(await entryStatuses(entryIds)).toEqual([
      ['submitted', null],
      ['submitted', null],
    ]);
  });
});

describe('a transfer’s statements: prepared once, the row the same as a transaction writes', () => {
  it('lets repositories built with different kinds with effects share one connection (a prepared name is one text)', async () => {
    // One connection, so both repositories' statements are prepared on it.
    const handle = await openDatabase({ url: await testDatabaseUrl(), poolSize: 1 });
    try {
      const withAll = new JournalRepository(handle.db);
      const withOne = new JournalRepository(handle.db);
      for (const [repository, withEffects] of [[withAll, kinds.confirming], [withOne, ['activation']], [withAll, kinds.confirming]] as const) {
        const only = (await commit(entry('transfer'))) as Extract<CommitResult, { committed: true }>;
        const hash = crypto.randomBytes(32).toString('hex');
        const attached = await journal.attach({ hash, sourceAccount: 'G', sequence: 1n, firstLedger: 1, lastLedger: 9, envelopeXdr: 'AAAA', outerHash: hash, bidStroops: 200n, bidLedger: undefined }, [only.entry.id], LEASE_MS);
        if (!('envelopeId' in attached)) throw new Error('not attached');
        await expect(repository.confirmEnvelopeAlone(attached.envelopeId, { ledger: 3 }, withEffects)).resolves.toBe('confirmed');
      }
    } finally {
      await handle.close();
    }
  });

  it('inserts a lone entry (nothing to claim or log) as the transaction path does: absent columns null, leased from the database’s clock', async () => {
    const alone = (await commit(entry('transfer', { userId: undefined }))) as Extract<CommitResult, { committed: true }>;
    const key = { callerId: crypto.randomUUID(), route: 'ledger.transfer', key: 'k-1', requestHash: 'h' };
    const inTransaction = (await commit(entry('transfer', { userId: undefined }), key)) as Extract<CommitResult, { committed: true }>;
    expect(alone.committed).toBe(true);
    expect(inTransaction.committed).toBe(true);
    const shape = (row: typeof alone.entry) => ({ ...row, id: undefined, createdAt: undefined, updatedAt: undefined, leaseUntil: undefined });
    expect(shape(alone.entry)).toEqual(shape(inTransaction.entry));
    expect(alone.entry).toMatchObject({ status: 'pending', userId: null, paymentReference: null, reversalId: null, withdrawalId: null, approvalId: null, envelopeId: null });
    // Leased for LEASE_MS from the insert's own now() (which created_at defaults to), as msFromNow does.
    expect(alone.entry.leaseUntil.getTime() - alone.entry.createdAt.getTime()).toBe(LEASE_MS);
  });

  it("inserts a claimed mint (the claim and the insert one statement) as the transaction path does, and moves the payment as the claim's own update does", async () => {
    const mint = async (key?: IdempotencyClaim) => {
      const { reference, userId } = await paidPayment();
      const done = (await commit(entry('payment_mint', { userId, paymentReference: reference, toPublicKey: 'GWALLET', amountStroops: 5_000_000_000n }), key)) as Extract<CommitResult, { committed: true }>;
      expect(done.committed).toBe(true);
      const [payment] = await db.select().from(payments).where(eq(payments.reference, reference));
      return { entry: done.entry, payment: payment! };
    };
    const alone = await mint();
    const inTransaction = await mint({ callerId: crypto.randomUUID(), route: 'payments.verify', key: 'k-2', requestHash: 'h' });
    const entryShape = (row: typeof alone.entry) => ({ ...row, id: undefined, userId: undefined, paymentReference: undefined, createdAt: undefined, updatedAt: undefined, leaseUntil: undefined });
    expect(entryShape(alone.entry)).toEqual(entryShape(inTransaction.entry));
    expect(alone.entry).toMatchObject({ kind: 'payment_mint', status: 'pending', amountStroops: 5_000_000_000n, reversalId: null, withdrawalId: null, approvalId: null, envelopeId: null, ledgerTransactionId: '' });
    expect(alone.entry.leaseUntil.getTime() - alone.entry.createdAt.getTime()).toBe(LEASE_MS);
    const paymentShape = (row: typeof alone.payment) => ({ ...row, reference: undefined, userId: undefined, createdAt: undefined, updatedAt: undefined, paidAt: undefined });
    expect(paymentShape(alone.payment)).toEqual(paymentShape(inTransaction.payment));
    expect(alone.payment).toMatchObject({ status: 'minting', tokensStroops: 5_000_000_000n, destinationPublicKey: 'GWALLET', nextCheckAt: null });
  });

  it('sends the lone insert, the mark and the confirmation as named statements, which PostgreSQL parses once per connection', async () => {
    // Observed, not replaced: every query the pool is given, with the name node-postgres prepares it under.
    const pool = (db as unknown as { $client: { query: (config: unknown, ...rest: unknown[]) => unknown } }).$client;
    const names: (string | undefined)[] = [];
    const query = pool.query.bind(pool);
    pool.query = (config: unknown, ...rest: unknown[]) => {
      names.push(typeof config === 'object' && config !== null ? (config as { name?: string }).name : undefined);
      return query(config, ...rest);
    };
    try {
      const only = (await commit(entry('transfer'))) as Extract<CommitResult, { committed: true }>;
      const attached = await journal.attach({ hash: 'a'.repeat(64), sourceAccount: 'G', sequence: 1n, firstLedger: 1, lastLedger: 9, envelopeXdr: 'AAAA', outerHash: 'b'.repeat(64), bidStroops: 200n, bidLedger: undefined }, [only.entry.id], LEASE_MS);
      if (!('envelopeId' in attached)) throw new Error('not attached');
      names.length = 0;
      await journal.markSubmitted(attached.envelopeId);
      await journal.confirmEnvelopeAlone(attached.envelopeId, { ledger: 5 }, kinds.confirming);
      await commit(entry('transfer'));
    } finally {
      pool.query = query;
    }
    expect(names).toEqual(['journal_mark_sent', expect.stringMatching(/^journal_confirm_alone_/), 'journal_insert_entry_alone']);
  });
});
