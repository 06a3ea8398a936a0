import type { Database } from '../db/client';
import { appendAdminLog } from '../db/repositories/admin-log.repository';
import type { ApprovalRepository, ApprovalRow } from '../db/repositories/approval.repository';
import { formatStroops } from '../domain/amounts';
import type { AdminActor } from '../domain/admin-log';
import type { ApprovalState } from '../domain/approval-lifecycle';
import { AppError } from '../errors/app-error';
import type { AnsweredWrite } from '../ledger/ledger-error-map';
import type { LedgerService } from './ledger.service';

/** An approval decided and written: what its original route answers (the mint's or the issue's). */
export interface ApprovedWrite {
  approval: ApprovalRow;
  write: AnsweredWrite;
}

/**
 * Two people for money creation (CONTRACT 11, src/domain/approval-lifecycle.ts): the second admin's
 * side of a mint or issue above MINT_APPROVAL_THRESHOLD. LedgerService records the request; here
 * another admin approves it (and it is written, once) or any admin rejects it.
 */
export class ApprovalService {
  constructor(private readonly deps: { db: Database; approvals: ApprovalRepository; ledger: LedgerService }) {}

  /** Approvals, newest first, optionally of one state (those past their 24 hours read `expired`). */
  async page(query: { status?: ApprovalState; limit: number; offset: number }): Promise<{ items: ApprovalRow[]; total: number }> {
    const { rows, total } = await this.deps.approvals.page(query);
    return { items: rows, total };
  }

  /**
   * A second admin approves: the request is written through the journal, claimed by the approval,
   * and answered as its original route answers it. Approving one already approved writes nothing:
   * it answers the approval's entry as it stands now (a retry after a timeout, a second approver).
   * The requester may never approve their own (403); a rejected or expired one never executes (409).
   */
  async approve(id: string, actor: AdminActor): Promise<ApprovedWrite> {
    const adminId = actor.adminId!;
    const requested = await this.found(id);
    if (requested.requestedBy === adminId) throw new AppError('FORBIDDEN', 'You cannot approve your own request: another admin must');
    const decided = await this.decided(id, 'approve', adminId);
    if (decided.status !== 'approved') throw new AppError('CONFLICT', `Approval is ${decided.status}: it never executes`);
    // Its admin log row (approval.approve) commits with the approved write's journal entry.
    return { approval: decided, write: await this.deps.ledger.writeApproved(decided, actor) };
  }

  /**
   * Any admin rejects a pending approval (the requester too: the request is withdrawn); nothing is
   * ever written for it. Rejecting one already rejected answers it again; an approved or expired one is 409.
   */
  async reject(id: string, actor: AdminActor): Promise<ApprovalRow> {
    await this.found(id);
    // The decision and its admin log row commit together; a reject of one rejected already writes neither.
    const decided = await this.deps.db.transaction(async (tx) => {
      const result = await this.deps.approvals.decide(id, 'reject', actor.adminId!, tx);
      if (result?.moved) {
        const { approval } = result;
        await appendAdminLog(tx, { ...actor, action: 'approval.reject', target: id, details: { action: approval.action, amount: formatStroops(approval.amountStroops) } });
      }
      return result?.approval;
    });
    if (!decided) throw new AppError('NOT_FOUND', 'Approval not found');
    if (decided.status !== 'rejected') throw new AppError('CONFLICT', `Approval is ${decided.status}: only a pending one can be rejected`);
    return decided;
  }

  private async found(id: string): Promise<ApprovalRow> {
    const approval = await this.deps.approvals.find(id);
    if (!approval) throw new AppError('NOT_FOUND', 'Approval not found');
    return approval;
  }

  /** The approval once the decision is made, or as another admin (or its expiry) left it. */
  private async decided(id: string, decision: 'approve' | 'reject', adminId: string): Promise<ApprovalRow> {
    const decided = await this.deps.approvals.decide(id, decision, adminId);
    if (!decided) throw new AppError('NOT_FOUND', 'Approval not found');
    return decided.approval;
  }
}
