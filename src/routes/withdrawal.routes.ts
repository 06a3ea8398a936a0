import { z } from 'zod';
import { AppError } from '../errors/app-error';
import { tokenAmountSchema } from '../http/amount-schemas';
import { paginationQuery, uuidParam } from '../http/schemas';
import { principalOf } from '../middleware/auth';
import { idempotencyOf, idempotent, markReplayed } from '../middleware/idempotency';
import type { PayoutAccountService } from '../services/payout-account.service';
import type { WithdrawalService } from '../services/withdrawal.service';
import { actorOf } from './admin-actor';
import { defineRoute } from './define-route';
import { messageRoute, pagedRoute } from './route-kinds';
import type { RouteDef } from './route-table';
import { adminWithdrawalItem, payoutAccountItem, toAdminWithdrawal, toPayoutAccount, toWithdrawal, withdrawalItem, withdrawalListQuery } from './withdrawal-record';

export const payoutAccountBody = z
  .object({
    bankCode: z.string().trim().regex(/^[0-9A-Za-z]{1,20}$/, 'must be a bank code from GET /api/payments/banks'),
    accountNumber: z.string().trim().regex(/^\d{10}$/, 'must be a 10-digit account number (NUBAN)'),
  })
  .strict();
export const withdrawalBody = z.object({ amount: tokenAmountSchema, payoutAccountId: uuidParam }).strict();
export const finalizeBody = z.object({ otp: z.string().trim().regex(/^\d{4,10}$/, 'must be the digits of the OTP') }).strict();
const idParams = z.object({ id: uuidParam }).strict();

/** Cash-out, in the payments group (CONTRACT 10): banks, the user's payout accounts, withdrawals. */
export function withdrawalRoutes(deps: { accounts: PayoutAccountService; withdrawals: WithdrawalService }): RouteDef[] {
  const { accounts, withdrawals } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/banks',
      access: 'user',
      summary: "The banks payouts go to (the provider's NGN list, cached)",
      response: { status: 200, schema: z.array(z.object({ name: z.string(), code: z.string() })) },
      handler: async (_req, res) => {
        res.json((await accounts.listBanks()).map(({ name, code }) => ({ name, code })));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/payout-accounts',
      access: 'user',
      summary: 'Add a bank account to withdraw to: resolved by the provider (400 when it does not resolve)',
      request: { body: payoutAccountBody },
      response: { status: 201, schema: payoutAccountItem },
      handler: async (req, res) => {
        res.status(201).json(toPayoutAccount(await accounts.add(principalOf(res).id, req.body.bankCode, req.body.accountNumber)));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/payout-accounts',
      access: 'user',
      summary: 'Your bank accounts for withdrawals',
      response: { status: 200, schema: z.array(payoutAccountItem) },
      handler: async (_req, res) => {
        res.json((await accounts.list(principalOf(res).id)).map(toPayoutAccount));
      },
    }),
    messageRoute({
      method: 'delete',
      path: '/payout-accounts/:id',
      access: 'user',
      summary: 'Remove one of your bank accounts (withdrawals already made to it go on)',
      request: { params: idParams },
      message: 'Payout account removed',
      fields: { success: z.literal(true) },
      act: async (req, res) => {
        await accounts.remove(principalOf(res).id, req.params.id);
        return { success: true as const };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/withdrawals',
      access: 'user',
      summary: 'Sell tokens for Naira paid to one of your bank accounts (Idempotency-Key header required); 202: the tokens leave the wallet first, then the provider pays',
      request: { body: withdrawalBody },
      after: [idempotent('payments.withdrawals')],
      response: { status: 202, schema: withdrawalItem },
      handler: async (req, res) => {
        const key = idempotencyOf(res);
        // Money leaves the service: a retry must never make a second withdrawal, so the key is not optional here.
        if (!key) throw new AppError('VALIDATION', 'Idempotency-Key header is required: send the same key when you retry');
        const { withdrawal, replayed } = await withdrawals.request({
          userId: principalOf(res).id,
          amountStroops: req.body.amount,
          payoutAccountId: req.body.payoutAccountId,
          idempotencyKey: key.key,
          requestHash: key.requestHash,
        });
        markReplayed(res, replayed);
        res.status(202).json(toWithdrawal(withdrawal));
      },
    }),
    pagedRoute({
      path: '/withdrawals',
      access: 'user',
      summary: 'Your withdrawals, newest first (total in X-Total-Count)',
      query: paginationQuery,
      item: withdrawalItem,
      fetch: ({ limit, offset }, _req, res) => withdrawals.page({ userId: principalOf(res).id, limit, offset }),
      toItem: toWithdrawal,
    }),
    defineRoute({
      method: 'get',
      path: '/withdrawals/:id',
      access: 'user',
      summary: 'One of your withdrawals',
      request: { params: idParams },
      response: { status: 200, schema: withdrawalItem },
      handler: async (req, res) => {
        const withdrawal = await withdrawals.findOwn(principalOf(res).id, req.params.id);
        if (!withdrawal) throw new AppError('NOT_FOUND', 'Withdrawal not found');
        res.json(toWithdrawal(withdrawal));
      },
    }),
  ];
}

/** Operators' side of cash-out, in the admin group. */
export function adminWithdrawalRoutes(deps: { withdrawals: WithdrawalService }): RouteDef[] {
  const { withdrawals } = deps;
  return [
    pagedRoute({
      path: '/withdrawals',
      access: 'admin',
      summary: 'Withdrawals, newest first, optionally of one state (?status=); amounts as decimal strings; total in X-Total-Count',
      query: withdrawalListQuery,
      item: adminWithdrawalItem,
      fetch: (query) => withdrawals.page(query),
      toItem: toAdminWithdrawal,
    }),
    messageRoute({
      method: 'post',
      path: '/withdrawals/:id/finalize',
      access: 'admin',
      summary: 'Give the OTP a withdrawal in awaiting_otp waits for (400 when the provider refuses it)',
      request: { params: idParams, body: finalizeBody },
      message: 'OTP accepted',
      fields: { status: z.string() },
      act: async (req, res) => ({ status: (await withdrawals.finalize(req.params.id, req.body.otp, actorOf(req, res))).status }),
    }),
    messageRoute({
      method: 'post',
      path: '/withdrawals/:id/cancel',
      access: 'admin',
      summary: 'Cancel a withdrawal before any transfer may exist (409 otherwise); its tokens go back to the wallet',
      request: { params: idParams },
      message: 'Withdrawal cancelled',
      fields: { status: z.string() },
      act: async (req, res) => ({ status: (await withdrawals.cancel(req.params.id, actorOf(req, res))).status }),
    }),
  ];
}
