import type { Response } from 'express';
import { z } from 'zod';
import type { ApprovalRow } from '../db/repositories/approval.repository';
import { formatStroops } from '../domain/amounts';
import type { AnsweredWrite } from '../ledger/ledger-error-map';
import { markReplayed } from '../middleware/idempotency';
import type { MoneyCreation } from '../services/ledger.service';

// How a mint (POST /api/payments/mint-tokens) and an issue (POST /api/ledger/create-asset) are
// answered, wherever they are written from: their own route, or the approval of a second admin
// (POST /api/admin/approvals/:id/approve answers what the approved route would have).

/** The mint's 200 once the ledger applied it. */
export const mintAnswer = z.object({ success: z.literal(true), message: z.string(), hash: z.string() });

/** A mint above MINT_APPROVAL_THRESHOLD: recorded for a second admin, nothing moved (the payments group's success shape). */
export const mintAwaitingApproval = z.object({
  success: z.literal(true),
  message: z.string(),
  approvalId: z.uuid().describe('The approval a second admin approves: POST /api/admin/approvals/{id}/approve'),
});

/** The response header naming the approval a request waits for (create-asset answers plain text). */
export const APPROVAL_ID_HEADER = 'Approval-Id';

/** A mint-tokens request's answer: the mint's (200 confirmed, 202 pending), or 202 with the approval it waits for. */
export function sendMintRequest(res: Response, creation: MoneyCreation, tokenCode: string): void {
  if (creation.written) sendMint(res, creation, tokenCode);
  else {
    const { approval, replayed } = creation;
    markReplayed(res, replayed);
    res.setHeader(APPROVAL_ID_HEADER, approval.id);
    res.status(202).json({ success: true, message: approvalMessage('Minting', approval), approvalId: approval.id } satisfies z.output<typeof mintAwaitingApproval>);
  }
}

/** A create-asset request's answer, in its plain text: the issue's (200 confirmed, 202 pending), or 202 naming the approval it waits for. */
export function sendIssueRequest(res: Response, creation: MoneyCreation): void {
  if (creation.written) sendIssue(res, creation);
  else {
    const { approval, replayed } = creation;
    markReplayed(res, replayed);
    res.setHeader(APPROVAL_ID_HEADER, approval.id);
    res.status(202).type('text/plain').send(approvalMessage('Issuing', approval));
  }
}

/** 200 once the ledger applied it; 202 `{message, result: {transactionId, hash, status}}` while unknown (CONTRACT 8). */
export function sendMint(res: Response, { entry, outcome, replayed }: AnsweredWrite, tokenCode: string): void {
  markReplayed(res, replayed);
  const hash = entry.ledgerTransactionId;
  if (outcome.status === 'pending') {
    res.status(202).json({
      message: 'Mint submitted; the ledger has not confirmed it yet. Retry with the same Idempotency-Key for its status',
      result: { transactionId: entry.id, hash, status: 'pending' },
    });
    return;
  }
  res.json({ success: true, message: `Minted ${formatStroops(entry.amountStroops)} ${tokenCode} (transaction ${hash})`, hash } satisfies z.output<typeof mintAnswer>);
}

/** 200 once the ledger applied the issue; 202 while its outcome is unknown (a retry with the same Idempotency-Key answers its state). */
export function sendIssue(res: Response, { entry, outcome, replayed }: AnsweredWrite): void {
  markReplayed(res, replayed);
  const issued = `${formatStroops(entry.amountStroops)} ${entry.assetCode}`;
  const hash = entry.ledgerTransactionId;
  if (outcome.status === 'confirmed') res.type('text/plain').send(`Issued ${issued} to the distribution account (transaction ${hash})`);
  else res.status(202).type('text/plain').send(`Issuing ${issued}: submitted, outcome not known yet (transaction ${hash}). Retry with the same Idempotency-Key for its status`);
}

/** What became of a request waiting for a second admin, in words (a retry with its key may find it decided). */
function approvalMessage(doing: 'Minting' | 'Issuing', approval: ApprovalRow): string {
  const what = `${doing} ${formatStroops(approval.amountStroops)} ${approval.assetCode}`;
  switch (approval.status) {
    case 'pending':
      return `${what} needs a second admin's approval: nothing moves until another admin approves it (POST /api/admin/approvals/${approval.id}/approve)`;
    case 'approved':
      return `${what} was approved by a second admin (approval ${approval.id}); the approval's answer says its transaction`;
    case 'rejected':
      return `${what} was rejected by an admin (approval ${approval.id}); nothing moved`;
    case 'expired':
      return `${what} expired without a second admin's approval (approval ${approval.id}); nothing moved`;
  }
}
