import crypto from 'node:crypto';
import { sandboxControlPaths } from '@wallet/paystack-sandbox';
import { eq } from 'drizzle-orm';
import { withdrawals } from '../../src/db/schema';
import type { WithdrawalRow } from '../../src/db/repositories/withdrawal.repository';
import type { WithdrawalState } from '../../src/domain/withdrawal-lifecycle';
import { eventually } from './eventually';
import { bearer, type CreatedUser } from './factories';
import { fundedUser } from './ledger-fixtures';
import { providerControl } from './provider-relay';
import type { RunningProvider } from './sandboxes';
import type { TestApp } from './test-app';

/** Settings that make the cash-out's background work quick enough for a test. */
export const FAST_CASH_OUT = {
  WITHDRAWAL_CHECK_RETRY_MS: '100',
  WITHDRAWAL_MIN_NAIRA: '1',
  WEBHOOK_RETRY_BASE_MS: '100',
  LEDGER_RECHECK_MS: '200',
  RECONCILE_INTERVAL_MS: '200',
};

/** Sets the provider's balance that transfers are paid from (kobo). */
export const setProviderBalance = (provider: RunningProvider, kobo: number) => providerControl(provider, sandboxControlPaths.balance(), { balance: kobo });

/** Every transfer the provider holds under `reference` (its list, as an auditor would read it). */
export async function providerTransfersOf(provider: RunningProvider, reference: string): Promise<Record<string, unknown>[]> {
  const res = await fetch(`${provider.url}/transfer?perPage=1000`, { headers: { Authorization: `Bearer ${provider.secretKey}` } });
  const json = (await res.json()) as { data: Record<string, unknown>[] };
  return json.data.filter((t) => t.reference === reference);
}

/** Adds a payout account for the user (Guaranty Trust Bank by default); its id. */
export async function addPayoutAccount(app: TestApp, user: CreatedUser, accountNumber = '0123456789', bankCode = '058'): Promise<string> {
  const res = await app.http.post('/api/payments/payout-accounts').set(bearer(user.token)).send({ bankCode, accountNumber });
  if (res.status !== 201) throw new Error(`payout-accounts answered ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { payoutAccountId: string }).payoutAccountId;
}

/** POST /api/payments/withdrawals as the user, with a fresh Idempotency-Key unless one is given. */
export function withdraw(app: TestApp, user: CreatedUser, body: Record<string, unknown>, key: string | null = crypto.randomUUID()) {
  const req = app.http.post('/api/payments/withdrawals').set(bearer(user.token));
  if (key !== null) req.set('Idempotency-Key', key);
  return req.send(body);
}

/** The withdrawal's row, straight from the database. */
export async function withdrawalRow(app: TestApp, id: string): Promise<WithdrawalRow | undefined> {
  const [row] = await app.container.database.db.select().from(withdrawals).where(eq(withdrawals.id, id));
  return row;
}

/** Waits until the withdrawal reaches `status`. */
export function withdrawalBecomes(app: TestApp, id: string, status: WithdrawalState): Promise<WithdrawalRow> {
  return eventually(async () => {
    const row = await withdrawalRow(app, id);
    return row?.status === status ? row : undefined;
  }, `withdrawal ${id} to become ${status}`);
}

/** A fresh 10-digit account number: the provider's transfers to it are one test's alone. */
export const randomAccountNumber = () => String(Math.floor(Math.random() * 9_000_000_000) + 1_000_000_000);

/** A transfer as the provider's list shows it (the fields a test reads). */
export interface ListedTransfer {
  reference: string;
  status: string;
  amount: number;
  recipient: { details: { account_number: string } };
}

/**
 * Every transfer the provider holds to `accountNumber`, under any reference, as an auditor reads
 * its `GET /transfer` list: a second reference to the same account would be a second payout.
 */
export async function transfersToAccount(provider: Pick<RunningProvider, 'url' | 'secretKey'>, accountNumber: string): Promise<ListedTransfer[]> {
  const res = await fetch(`${provider.url}/transfer?perPage=1000`, { headers: { Authorization: `Bearer ${provider.secretKey}` } });
  if (!res.ok) throw new Error(`GET /transfer answered ${res.status}`);
  const all = ((await res.json()) as { data: ListedTransfer[] }).data;
  return all.filter((t) => t.recipient.details.account_number === accountNumber);
}

/**
 * A user funded with 1000 tokens who withdraws 250.5 to a new payout account, paid by a provider
 * with the balance for it; the app's background work must be running (container.start()).
 */
export async function paidWithdrawal(app: TestApp, cashier: RunningProvider): Promise<{ user: CreatedUser; id: string; paid: WithdrawalRow }> {
  await setProviderBalance(cashier, 100_000_00);
  const user = await fundedUser(app, 1000);
  const account = await addPayoutAccount(app, user, randomAccountNumber());
  const res = await withdraw(app, user, { amount: '250.5', payoutAccountId: account });
  if (res.status !== 202) throw new Error(`the withdrawal answered ${res.status}: ${JSON.stringify(res.body)}`);
  const id = res.body.withdrawalId as string;
  return { user, id, paid: await withdrawalBecomes(app, id, 'paid') };
}
