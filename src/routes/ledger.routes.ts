import type { Response } from 'express';
import { z } from 'zod';
import { formatStroops } from '../domain/amounts';
import { isStellarPublicKey } from '../domain/stellar-keys';
import { AppError, RECEIVER_NOT_FOUND } from '../errors/app-error';
import { tokenAmountSchema, tokenAmountStringSchema } from '../http/amount-schemas';
import { uuidParam } from '../http/schemas';
import { principalOf } from '../middleware/auth';
import { idempotencyOf, idempotent, markReplayed } from '../middleware/idempotency';
import type { AnsweredWrite } from '../ledger/ledger-error-map';
import type { LedgerService } from '../services/ledger.service';
import { actorOf } from './admin-actor';
import { defineRoute } from './define-route';
import { sendIssueRequest } from './money-creation-answers';
import { pagedRoute } from './route-kinds';
import type { Access, RouteDef } from './route-table';
import { transactionRecordOf, transactionRecordSchema } from './transaction-record';

const publicKeySchema = z.string().max(56).refine(isStellarPublicKey, 'must be a valid Stellar public key (G...)');
const publicKeyParams = z.object({ publicKey: publicKeySchema }).strict();
export const transferBody = z.object({ receiverPublicKey: publicKeySchema, amount: tokenAmountSchema }).strict();
export const createAssetBody = z.object({ assetCode: z.string().min(1).max(12), amount: tokenAmountStringSchema }).strict();

export const userBalanceSchema = z.object({ balances: z.array(z.object({ asset_type: z.string(), balance: z.string() })) });
export const adminBalanceSchema = z.object({
  balances: z.array(z.object({ asset_code: z.string(), asset_issuer: z.string(), balance: z.string() })),
});

export interface LedgerRouteDeps {
  ledger: LedgerService;
  tokenCode: string;
}

export function ledgerRoutes({ ledger, tokenCode }: LedgerRouteDeps): RouteDef[] {
  return [
    balancesRoute(ledger, {
      path: '/check-balance/:publicKey',
      access: 'any',
      summary: 'Native and token balances of a ledger account',
      answer: userBalanceSchema,
      show: ({ ledger: ready, account }) => ({
        balances: account.balances
          .filter((b) => b.assetType === 'native' || (b.assetCode === tokenCode && b.assetIssuer === ready.asset.getIssuer()))
          .map((b) => ({ asset_type: b.assetType, balance: b.balance })),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/transfer',
      access: 'user',
      summary: `Transfer ${tokenCode} from your wallet (optional Idempotency-Key header; 202 while the ledger has not decided)`,
      request: { body: transferBody },
      after: [idempotent('ledger.transfer')],
      response: { status: 200, schema: z.object({ message: z.string(), result: z.object({}).passthrough() }) },
      // The spec's one plain-text error: the receiver does not exist on the ledger.
      errors: { plainText: [RECEIVER_NOT_FOUND] },
      handler: async (req, res) => {
        const { receiverPublicKey, amount } = req.body;
        sendTransfer(res, await ledger.transfer(principalOf(res).id, receiverPublicKey, amount, idempotencyOf(res)));
      },
    }),
    pagedRoute({
      path: '/transactions/:userId',
      access: 'user',
      summary: 'Your transaction records: every movement of your wallet, sent or received, newest first (paginated; total in X-Total-Count)',
      params: z.object({ userId: uuidParam }).strict(),
      item: transactionRecordSchema,
      fetch: ({ limit, offset }, req, res) => {
        if (req.params.userId !== principalOf(res).id) throw new AppError('FORBIDDEN', "You can only read your own transactions");
        return ledger.transactionPage(req.params.userId, limit, offset);
      },
      toItem: transactionRecordOf,
    }),
    defineRoute({
      method: 'post',
      path: '/create-asset',
      access: 'admin',
      summary: `Issue new ${tokenCode} from the issuing account to the distribution account (optional Idempotency-Key header; 202 while the ledger has not decided, or above MINT_APPROVAL_THRESHOLD until a second admin approves)`,
      request: { body: createAssetBody },
      after: [idempotent('ledger.create-asset')],
      response: { status: 200, contentType: 'text/plain' },
      handler: async (req, res) => {
        const { assetCode, amount } = req.body;
        sendIssueRequest(res, await ledger.createAsset(actorOf(req, res), assetCode, amount, idempotencyOf(res)));
      },
    }),
    balancesRoute(ledger, {
      path: '/check-admin-balance/:publicKey',
      access: 'admin',
      summary: 'Full balances of a ledger account (issuing or distribution)',
      answer: adminBalanceSchema,
      show: ({ account }) => ({
        balances: account.balances.map((b) =>
          b.assetType === 'native'
            ? { asset_code: 'XLM', asset_issuer: '', balance: b.balance }
            : { asset_code: b.assetCode ?? '', asset_issuer: b.assetIssuer ?? '', balance: b.balance },
        ),
      }),
    }),
  ];
}

/** A GET of a ledger account's balances by its public key, shown as `show` makes them for the route's callers. */
function balancesRoute<Answer extends z.ZodType>(
  ledger: LedgerService,
  row: { path: string; access: Access; summary: string; answer: Answer; show: (found: Awaited<ReturnType<LedgerService['account']>>) => z.output<Answer> },
): RouteDef {
  const { path, access, summary, answer, show } = row;
  return defineRoute({
    method: 'get',
    path,
    access,
    summary,
    request: { params: publicKeyParams },
    response: { status: 200, schema: answer },
    handler: async (req, res) => {
      res.json(show(await ledger.account(req.params.publicKey)));
    },
  });
}

/** 200 once the ledger applied it; 202 with the record's id and hash while its outcome is unknown (CONTRACT 8). */
function sendTransfer(res: Response, { entry, outcome, replayed }: AnsweredWrite): void {
  markReplayed(res, replayed);
  if (outcome.status === 'pending') {
    res.status(202).json({
      message: 'Transfer submitted; the ledger has not confirmed it yet. Retry with the same Idempotency-Key or read your transactions for its status',
      result: { transactionId: entry.id, hash: entry.ledgerTransactionId, status: 'pending' },
    });
    return;
  }
  res.json({
    message: 'Transfer successful',
    result: {
      hash: entry.ledgerTransactionId,
      ledger: entry.ledger,
      transactionId: entry.id,
      from: entry.fromPublicKey,
      to: entry.toPublicKey,
      amount: formatStroops(entry.amountStroops),
      assetCode: entry.assetCode,
      status: 'confirmed',
    },
  });
}
