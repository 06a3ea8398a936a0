import { z } from 'zod';
import type { PayoutAccountRow } from '../db/repositories/payout-account.repository';
import type { WithdrawalRow } from '../db/repositories/withdrawal.repository';
import { formatKobo, formatStroops } from '../domain/amounts';
import { WITHDRAWAL_STATES } from '../domain/withdrawal-lifecycle';
import { paginationQuery } from '../http/schemas';

/** GET /api/admin/withdrawals' query: a page, and optionally one state. */
export const withdrawalListQuery = paginationQuery.extend({ status: z.enum(WITHDRAWAL_STATES).optional() }).strict();

export const payoutAccountItem = z.object({
  payoutAccountId: z.uuid(),
  bankName: z.string(),
  bankCode: z.string(),
  accountNumber: z.string(),
  accountName: z.string().describe("The name the bank holds for the account, as the provider resolved it"),
  createdAt: z.string(),
});

export function toPayoutAccount(a: PayoutAccountRow): z.output<typeof payoutAccountItem> {
  return { payoutAccountId: a.id, bankName: a.bankName, bankCode: a.bankCode, accountNumber: a.accountNumber, accountName: a.accountName, createdAt: a.createdAt.toISOString() };
}

/** A withdrawal as its owner sees it: money as decimal strings, never floats. */
export const withdrawalItem = z.object({
  withdrawalId: z.uuid(),
  status: z.enum(WITHDRAWAL_STATES),
  amount: z.string().describe('Tokens taken from the wallet, as a decimal string'),
  naira: z.string().describe('Naira paid for them, as a decimal string (kobo exact)'),
  payoutAccountId: z.uuid(),
  bankName: z.string(),
  accountNumber: z.string(),
  accountName: z.string(),
  reason: z.string().nullable().describe('Why the tokens came back or never left; null otherwise'),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export function toWithdrawal(w: WithdrawalRow): z.output<typeof withdrawalItem> {
  return {
    withdrawalId: w.id,
    status: w.status,
    amount: formatStroops(w.amountStroops),
    naira: formatKobo(w.nairaKobo),
    payoutAccountId: w.payoutAccountId,
    bankName: w.bankName,
    accountNumber: w.accountNumber,
    accountName: w.accountName,
    reason: w.reason,
    createdAt: w.createdAt.toISOString(),
    updatedAt: w.updatedAt.toISOString(),
  };
}

/** A withdrawal as operators see it: its owner, the provider's side, and what the sweep is doing. */
export const adminWithdrawalItem = withdrawalItem.extend({
  userId: z.uuid(),
  reference: z.string().describe("The provider transfer's reference: the one it is ever paid under"),
  transferCode: z.string().nullable(),
  providerStatus: z.string().nullable(),
  transferCalls: z.number().int(),
  paidAt: z.string().nullable(),
  nextCheckAt: z.string(),
});

export function toAdminWithdrawal(w: WithdrawalRow): z.output<typeof adminWithdrawalItem> {
  return {
    ...toWithdrawal(w),
    userId: w.userId,
    reference: w.reference,
    transferCode: w.transferCode,
    providerStatus: w.providerStatus,
    transferCalls: w.transferCalls,
    paidAt: w.paidAt?.toISOString() ?? null,
    nextCheckAt: w.nextCheckAt.toISOString(),
  };
}
