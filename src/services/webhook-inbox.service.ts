import type { WebhookEventRow, WebhookInboxRepository } from '../db/repositories/webhook-inbox.repository';
import type { ProviderEvent } from '../http/webhook-event';
import type { Logger } from '../logger';
import { QueueWorker, type RetryPolicy } from '../workers/queue-worker';
import type { PaymentService, SettleOutcome } from './payment.service';
import type { ReversalService } from './reversal.service';
import type { WithdrawalService } from './withdrawal.service';

/**
 * Works stored provider events until their outcome is final: `charge.success` through the same
 * path as verify-payment; `refund.processed` and a lost `charge.dispute.resolve` recorded as
 * reversals (ReversalService takes the tokens back); `charge.dispute.create`/`remind` hold the
 * payment's tokens and a won resolution releases them; `transfer.success`/`failed`/`reversed` move
 * the withdrawal whose transfer they are about (WithdrawalService.settleTransfer). Retried until
 * their outcome is final: a provider or database failure, or a provider that still says "not yet"
 * (a webhook can arrive before verify agrees), is tried again later, so a buyer who closed the
 * browser before the redirect is still credited. An event set aside after its last attempt is
 * counted (metrics) and listed (`npm run payments:reconcile`). Claimed in the database, so any
 * number of processes run it.
 */
export class WebhookInboxService extends QueueWorker<WebhookEventRow> {
  constructor(
    private readonly inbox: WebhookInboxRepository,
    private readonly payments: PaymentService,
    private readonly reversals: ReversalService,
    private readonly withdrawals: WithdrawalService,
    policy: RetryPolicy,
    logger: Logger,
  ) {
    super(inbox, {
      failureMessage: 'webhook inbox deferred',
      batchSize: 50,
      policy,
      describe: (event) => ({ reference: event.reference, event: event.event }),
      logMessages: {
        retrying: 'webhook settlement failed, retrying later',
        setAside: 'webhook event set aside after its last attempt',
        notFinal: 'webhook event not final yet, asking again later',
      },
    }, logger);
  }

  /**
   * Stores a verified event about one of this service's payments or withdrawals' transfers, and
   * settles it at once in the background. References this service never issued (the provider
   * account may serve other integrations) are acknowledged and not kept.
   */
  async receive(event: ProviderEvent): Promise<void> {
    if (!(await this.payments.find(event.reference)) && !(await this.withdrawals.isWithdrawal(event.reference))) return;
    if (await this.inbox.store(event)) void this.run();
  }

  protected async handle(event: WebhookEventRow): Promise<void | 'later'> {
    const outcome = await this.outcomeOf(event);
    if (outcome === 'later') return 'later';
    await this.inbox.finish(event.id, outcome);
  }

  /** What the event did, once final; `later` while its payment is not where the event can act on it yet. */
  private async outcomeOf(event: WebhookEventRow): Promise<string | 'later'> {
    const data = (event.payload ?? {}) as Record<string, unknown>;
    switch (event.event) {
      case 'charge.success': {
        const outcome = await this.payments.settle(event.reference);
        if (!isFinal(outcome)) return 'later';
        return outcome.kind === 'not_paid' ? `not_paid:${outcome.status}` : outcome.kind;
      }
      case 'refund.processed': {
        const amountKobo = koboOf(data.amount);
        if (amountKobo === undefined) throw new Error('refund.processed carries no amount in kobo');
        await this.reversals.record({ key: `refund:${objectId(data, String(data.refund_reference ?? event.eventKey))}`, paymentReference: event.reference, cause: 'refund', amountKobo });
        return 'reversal recorded';
      }
      case 'charge.dispute.create':
      case 'charge.dispute.remind': {
        // A chargeback already decided (its resolution processed first) is not held again.
        if (await this.inbox.exists(`charge.dispute.resolve:${objectId(data, '')}`)) return 'dispute already resolved';
        const step = await this.reversals.openDispute(event.reference);
        return step === 'not_yet' ? 'later' : step;
      }
      case 'charge.dispute.resolve':
        return this.resolveDispute(event, data);
      case 'transfer.success':
      case 'transfer.failed':
      case 'transfer.reversed': {
        // What the provider shows of the transfer now decides, so events in any order, and again, agree.
        const outcome = await this.withdrawals.settleTransfer(event.reference);
        return outcome === 'later' || outcome === 'unknown' ? 'later' : `withdrawal ${outcome}`;
      }
      default:
        // refund.pending / refund.failed / refund.needs-attention and the like: no money moved yet.
        return `noted: ${event.event}`;
    }
  }

  private async resolveDispute(event: WebhookEventRow, data: Record<string, unknown>): Promise<string | 'later'> {
    if (data.resolution === 'declined') {
      const step = await this.reversals.disputeWon(event.reference);
      return step === 'not_yet' ? 'later' : step;
    }
    const transaction = (data.transaction ?? {}) as Record<string, unknown>;
    // The buyer got the money back: refund_amount when the provider says it, else the whole charge.
    const amountKobo = koboOf(data.refund_amount) ?? koboOf(transaction.amount);
    if (amountKobo === undefined) throw new Error('charge.dispute.resolve carries no amount in kobo');
    await this.reversals.record({ key: `dispute:${objectId(data, event.eventKey)}`, paymentReference: event.reference, cause: 'chargeback', amountKobo });
    return 'reversal recorded';
  }
}

/** The provider's id of the refund or dispute an event is about (`fallback` when it sends none). */
function objectId(data: Record<string, unknown>, fallback: string): string {
  const id = data.id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : fallback;
}

/** Kobo as Paystack sends it in events: an integer, or a string of digits (refund samples). */
function koboOf(value: unknown): bigint | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return BigInt(value);
  if (typeof value === 'string' && /^[1-9]\d{0,17}$/.test(value)) return BigInt(value);
  return undefined;
}

/** A charge.success is done once the payment is consumed or decided; "not yet" and "unknown" are asked again. */
function isFinal(outcome: SettleOutcome): boolean {
  if (outcome.kind === 'unknown') return false;
  if (outcome.kind === 'not_paid') return outcome.final;
  return true;
}
