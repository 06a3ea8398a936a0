import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Container } from '../../src/container';
import type { DatabaseHandle } from '../../src/db/client';
import { ledgerEntries, ledgerEnvelopes, type EntryKind } from '../../src/db/schema';
import { standardKinds } from '../../src/ledger/kinds/registry';
import { queryRows } from './database-state';
import type { TestApp } from './test-app';

/** An envelope as a process that died around its submission left it in the journal. */
export interface CrashedEnvelope {
  envelopeId: string;
  hash: string;
  envelopeXdr: string;
}

/**
 * Simulates a process that dies right after storing an envelope carrying an entry of `kind` (a
 * payment's mint by default) in the journal: `before-send` never hands it to the ledger API (it
 * stays pending); `after-send` submits it (the ledger applies it) and dies before hearing the
 * answer (it stays submitted). Envelopes of other kinds pass untouched.
 */
export function crashAroundSending(
  container: Container,
  when: 'before-send' | 'after-send',
  kind: EntryKind = 'payment_mint',
): { crashed: CrashedEnvelope[]; restore(): void } {
  const sender = container.ledgerModule.accounts.sender;
  const send = sender.send.bind(sender);
  const crashed: CrashedEnvelope[] = [];
  sender.send = async (envelopeId, tx, facts) => {
    const entries = await container.ledgerModule.repository.entriesOf(envelopeId);
    if (!entries.some((e) => e.kind === kind)) return send(envelopeId, tx, facts);
    crashed.push({ envelopeId, hash: facts.hash, envelopeXdr: tx.toEnvelope().toXDR('base64') });
    if (when === 'after-send') {
      await container.ledgerModule.repository.markSubmitted(envelopeId);
      const answer = await container.ledgerModule.client.submit(tx);
      if (answer.kind !== 'applied') throw new Error(`simulated crash after-send: the ledger was meant to apply the envelope, it answered ${answer.kind}`);
    }
    throw new Error(`simulated crash ${when}`);
  };
  return {
    crashed,
    restore: () => {
      sender.send = send;
    },
  };
}

/** Ends every lease at once: what the passing of LEDGER_LEASE_MS after a crash looks like to the reconciler. */
export async function expireLeases(app: TestApp | DatabaseHandle): Promise<void> {
  const db = 'container' in app ? app.container.database.db : app.db;
  await db.execute(sql`update ledger_envelopes set next_check_at = now() where status in ('pending', 'submitted')`);
  await db.execute(sql`update ledger_entries set lease_until = now() where status in ('pending', 'submitted')`);
}

/**
 * The user's transaction records as journal rows (their kind included, which the API's records do
 * not show), newest first, straight from the database.
 */
export async function recordRowsOf(app: TestApp, userId: string) {
  return app.container.database.db
    .select()
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.userId, userId), inArray(ledgerEntries.kind, standardKinds().recordKinds as EntryKind[])))
    .orderBy(desc(ledgerEntries.createdAt), desc(ledgerEntries.id));
}

/** Every envelope in the journal, straight from the database. */
export async function allEnvelopes(app: TestApp) {
  return app.container.database.db.select().from(ledgerEnvelopes);
}

/** Envelopes and entries whose outcome the journal does not know yet. */
export async function openJournal(app: TestApp): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    app.container.database,
    sql`select (select count(*) from ledger_envelopes where status in ('pending', 'submitted')) + (select count(*) from ledger_entries where status in ('pending', 'submitted')) as n`,
  );
  return Number(row!.n);
}
