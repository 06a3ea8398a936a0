import { z } from 'zod';
import type { ApprovalRow } from '../db/repositories/approval.repository';
import { formatStroops } from '../domain/amounts';
import { APPROVAL_ACTION, APPROVAL_ACTIONS, APPROVAL_STATES } from '../domain/approval-lifecycle';
import { paginationQuery, uuidParam } from '../http/schemas';
import { actorOf } from './admin-actor';
import type { ApprovalService } from '../services/approval.service';
import { defineRoute } from './define-route';
import { mintAnswer, sendIssue, sendMint } from './money-creation-answers';
import { messageRoute, pagedRoute } from './route-kinds';
import type { RouteDef } from './route-table';

/** GET /api/admin/approvals' query: a page, and optionally one state. */
export const approvalListQuery = paginationQuery.extend({ status: z.enum(APPROVAL_STATES).optional() }).strict();
const idParams = z.object({ id: uuidParam }).strict();

/** An approval as operators see it: the request as data, money as decimal strings, never floats. */
export const approvalItem = z.object({
  approvalId: z.uuid(),
  action: z.enum(APPROVAL_ACTIONS).describe('mint (mint-tokens: to a user) or issue (create-asset: to the distribution account)'),
  status: z.enum(APPROVAL_STATES),
  userId: z.uuid().nullable().describe("The mint's user; null for an issue"),
  amount: z.string().describe('Tokens, as a decimal string'),
  assetCode: z.string(),
  requestedBy: z.uuid().describe('The admin who asked: never the one who approves'),
  decidedBy: z.uuid().nullable(),
  decidedAt: z.string().nullable(),
  expiresAt: z.string().describe('24 hours after the request; a pending approval past it is expired and never executes'),
  transactionId: z.uuid().nullable().describe('The journal entry that writes it, once approved'),
  createdAt: z.string(),
});

export function toApprovalItem(a: ApprovalRow): z.output<typeof approvalItem> {
  return {
    approvalId: a.id,
    action: a.action,
    status: a.status,
    userId: a.userId,
    amount: formatStroops(a.amountStroops),
    assetCode: a.assetCode,
    requestedBy: a.requestedBy,
    decidedBy: a.decidedBy,
    decidedAt: a.decidedAt?.toISOString() ?? null,
    expiresAt: a.expiresAt.toISOString(),
    transactionId: a.entryId,
    createdAt: a.createdAt.toISOString(),
  };
}

/** Two people for money creation (CONTRACT 11), in the admin group: the second admin's side. */
export function adminApprovalRoutes(deps: { approvals: ApprovalService; tokenCode: string }): RouteDef[] {
  const { approvals, tokenCode } = deps;
  return [
    pagedRoute({
      path: '/approvals',
      access: 'admin',
      summary: 'Mints and issues waiting for (or decided by) a second admin, newest first, optionally of one state (?status=); amounts as decimal strings; total in X-Total-Count',
      query: approvalListQuery,
      item: approvalItem,
      fetch: (query) => approvals.page(query),
      toItem: toApprovalItem,
    }),
    defineRoute({
      method: 'post',
      path: '/approvals/:id/approve',
      access: 'admin',
      summary: "Approve another admin's mint or issue: it is written once, and answered as mint-tokens (JSON) or create-asset (plain text) would have answered",
      request: { params: idParams },
      response: { status: 200, schema: mintAnswer },
      handler: async (req, res) => {
        const { approval, write } = await approvals.approve(req.params.id, actorOf(req, res));
        if (approval.action === APPROVAL_ACTION.mint) sendMint(res, write, tokenCode);
        else sendIssue(res, write);
      },
    }),
    messageRoute({
      method: 'post',
      path: '/approvals/:id/reject',
      access: 'admin',
      summary: 'Reject a pending mint or issue (the requester may withdraw their own): it never executes',
      request: { params: idParams },
      message: 'Approval rejected',
      fields: { status: z.enum(APPROVAL_STATES) },
      act: async (req, res) => ({ status: (await approvals.reject(req.params.id, actorOf(req, res))).status }),
    }),
  ];
}
