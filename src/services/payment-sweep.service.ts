import type { PaymentRepository, PaymentRow } from '../db/repositories/payment.repository';
import type { Logger } from '../logger';
import { QueueWorker, type LeasedQueue, type RetryPolicy } from '../workers/queue-worker';
import type { PaymentService } from './payment.service';

/** A payment as the sweep's queue item. */
type SweepItem = { id: string; attempts: number; payment: PaymentRow };

export interface PaymentSweepOptions {
  policy: RetryPolicy;
  /** How often a paid payment waiting for its buyer's wallet is looked at again (no provider call). */
  walletWaitMs: number;
}

/**
 * Finishes every payment without a browser or a webhook (CONTRACT 8): asks the provider about each
 * `initialized` reference (first PAYMENT_FIRST_CHECK_MS after the intent, then with backoff) until
 * its answer is final, and mints each `paid` one once its buyer's wallet is on the ledger. A
 * checkout still open ("abandoned", "ongoing"...) is only asked about again, never closed; after the
 * last attempt the sweep stops asking and the payment stays as it is, counted for an operator.
 * Claimed in the database (SKIP LOCKED, leased), so any number of processes run it.
 */
export class PaymentSweepService extends QueueWorker<SweepItem> {
  constructor(
    private readonly repository: PaymentRepository,
    private readonly payments: PaymentService,
    private readonly options: PaymentSweepOptions,
    logger: Logger,
  ) {
    super(sweepQueue(repository), {
      failureMessage: 'payment sweep deferred',
      batchSize: 50,
      policy: options.policy,
      describe: (item) => ({ reference: item.id, status: item.payment.status }),
      logMessages: {
        retrying: 'payment sweep failed for a payment, retrying later',
        setAside: 'payment sweep stopped asking about a payment after its last attempt',
        notFinal: 'the provider has no final answer for a payment yet',
      },
    }, logger);
  }

  protected async handle({ payment }: SweepItem): Promise<void | 'later'> {
    const outcome = await this.payments.settle(payment.reference);
    const now = await this.repository.find(payment.reference);
    if (now?.status === 'paid') {
      // consumed, its mint waiting for the wallet: look again soon, whatever the attempts so far
      await this.repository.checkLater(payment.reference, this.options.walletWaitMs);
      return;
    }
    if (outcome.kind === 'unknown' || (outcome.kind === 'not_paid' && !outcome.final)) return 'later';
  }
}

function sweepQueue(repository: PaymentRepository): LeasedQueue<SweepItem> {
  return {
    claimDue: async (limit, leaseMs) => (await repository.claimDue(limit, leaseMs)).map((payment) => ({ id: payment.reference, attempts: payment.checkAttempts, payment })),
    retryLater: (reference, delayMs) => repository.checkLater(reference, delayMs),
    setAside: (reference) => repository.stopChecking(reference),
  };
}
