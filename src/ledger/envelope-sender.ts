import { EventEmitter } from 'node:events';
import type { FeeBumpTransaction, Transaction } from '@stellar/stellar-sdk';
import type { LedgerRejectedError } from '../clients/ledger-errors';
import type { LedgerApi, SubmitAnswer } from '../clients/ledger-api';
import type { JournalRepository } from '../db/repositories/journal.repository';
import type { Logger } from '../logger';
import { reach } from './edge-failure';
import { envelopeFate, type EnvelopeFacts } from './envelope-fate';
import type { EnvelopeLifecycle } from './envelope-lifecycle';
import { bidNamedBy, type FeeBumper } from './fee-bumper';
import { errorReason } from '../errors/loggable-error';

/** Where an envelope stands after a send, as recorded in the journal (but for `refused`). */
export type SendOutcome =
  | { kind: 'applied'; ledger: number }
  /** Refused on its first and only submission: nothing applied. The caller records the verdicts. */
  | { kind: 'refused'; error: LedgerRejectedError }
  /** Failed for good (never delivered, failed on the ledger, or provably never applies): recorded; its entries may ride again. */
  | { kind: 'failed'; reason: string }
  /** Still open, outcome unknown: recorded for the reconciler, which keeps settling it. */
  | { kind: 'unknown' }
  /** Another process settled it first: read the journal. */
  | { kind: 'elsewhere' };

/**
 * What sending reports as it goes, to whoever listens from above (the container counts it in the
 * metrics): `result`, a submission's outcome (a result code, `unavailable`, `unknown` or
 * `resubmission_refused`); `feePaid`, the stroops the network charged for an envelope this process
 * saw applied; `bump`, a waiting envelope's bid was raised.
 */
export interface SendEventMap {
  result: [code: string];
  feePaid: [stroops: bigint];
  bump: [];
}

export interface EnvelopeSenderOptions {
  client: LedgerApi;
  journal: JournalRepository;
  /** Records a send's end: the envelope settled with what it means for its entries. */
  lifecycle: EnvelopeLifecycle;
  logger: Logger;
  /** Lookups and same-bytes resubmissions after an unclear answer, before leaving it to the reconciler. */
  settleAttempts: number;
  /** First pause between settle attempts (doubles, capped at 4 s). */
  settleBaseDelayMs: number;
  /** When the reconciler looks again at an envelope left open. */
  recheckMs: number;
  /** Who pays the fees: raises the bid of an envelope that keeps waiting. */
  bumper(): Promise<FeeBumper>;
  /** Ledgers an envelope's bid may wait with Horizon before it is raised. */
  bumpAfterLedgers: number;
}

/** What settling an envelope has learned from core's queue, for its next raise. */
interface Bidding {
  /** The envelope the queue holds, as far as this process knows: the last one sent that it did not refuse. */
  queued: Transaction | FeeBumpTransaction;
  /** The last envelope the queue refused. */
  refused: Transaction | FeeBumpTransaction | undefined;
  /** The least bid per operation that refusal named (tx_insufficient_fee's feeCharged). */
  named: bigint | undefined;
}

/** What settling an envelope carries from one look to the next. */
interface Settling {
  /** The envelope last sent: the one in hand, or a fee bump of it at a raised bid. */
  tx: Transaction | FeeBumpTransaction;
  /**
   * Every fee bump of it that ever left: any may be the one that applied (an API that finds a fee
   * bump only by its own hash must be asked for each, or absence would be "proven" of the wrong one).
   */
  sentHashes: Set<string>;
  bidding: Bidding;
}

/**
 * Sends journal envelopes and settles them by ledger evidence. Used by the live submitters and by
 * the reconciler alike, so both follow one rule: only the same bytes are ever resubmitted, only a
 * first submission's refusal or a connection never opened counts as "not applied", and anything
 * else stays open until the ledger shows its fate (see envelopeFate).
 */
export class EnvelopeSender {
  readonly events = new EventEmitter<SendEventMap>();

  constructor(private readonly options: EnvelopeSenderOptions) {}

  /** Sends an envelope (its first submission if it was never sent) and settles it. */
  async send(envelopeId: string, tx: Transaction | FeeBumpTransaction, facts: EnvelopeFacts): Promise<SendOutcome> {
    const count = await this.options.journal.markSubmitted(envelopeId);
    if (count === undefined) return { kind: 'elsewhere' };
    const answer = await this.options.client.submit(tx);
    // Recording what the answer settles writes to the journal: if the database fails there, the
    // ledger's evidence settles the envelope instead, as it does an unclear answer.
    const recorded = await reach(() => this.settledBy(answer, count === 1, envelopeId, facts));
    if (recorded.reached && recorded.value) return recorded.value;
    this.events.emit('result', answer.kind === 'refused' ? 'resubmission_refused' : 'unknown');
    const reason = recorded.reached ? reasonOf(answer) : errorReason(recorded.error);
    this.options.logger.warn({ hash: facts.hash, reason }, 'submission outcome unknown, settling by ledger evidence');
    return this.settle(envelopeId, tx, facts, this.options.settleAttempts);
  }

  /**
   * What a submission's answer settles by itself: applied, and on the first submission a refusal or
   * bytes never delivered. Undefined when only the ledger's evidence can: an unclear answer, or a
   * resubmission refused or not delivered (an earlier submission may have carried the envelope).
   */
  private async settledBy(answer: SubmitAnswer, first: boolean, envelopeId: string, facts: EnvelopeFacts): Promise<SendOutcome | undefined> {
    switch (answer.kind) {
      case 'applied':
        return this.applied(envelopeId, facts.hash, answer);
      case 'refused':
        if (!first) return undefined;
        this.events.emit('result', answer.error.code);
        return { kind: 'refused', error: answer.error };
      case 'not_delivered':
        if (!first) return undefined;
        this.events.emit('result', 'unavailable');
        // The connection was never opened: nobody has these bytes, so the envelope can never apply.
        return this.failed(envelopeId, 'not_delivered', false);
      case 'unclear':
        return undefined;
    }
  }

  /**
   * Looks for the envelope's fate and, while it is open, resubmits it: the same bytes, or the same
   * inner transaction at a higher bid once it has waited `bumpAfterLedgers` ledgers. `attempts`
   * times, then leaves it open for the reconciler.
   */
  async settle(envelopeId: string, sent: Transaction | FeeBumpTransaction, facts: EnvelopeFacts, attempts: number): Promise<SendOutcome> {
    const settling: Settling = {
      tx: sent,
      sentHashes: new Set([...(facts.priorOuterHashes ?? []), sent.hash().toString('hex')]),
      bidding: { queued: sent, refused: undefined, named: undefined },
    };
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (attempt > 0 || attempts > 1) await sleep(Math.min(4000, this.options.settleBaseDelayMs * 2 ** attempt));
      const looked = await reach(() => this.lookAndResend(envelopeId, facts, settling));
      // Not reached: a lookup or the journal did not answer (the network or the database
      // unreachable). Nothing was learned and nothing is decided: the next attempt looks again.
      if (looked.reached && looked.value) return looked.value;
    }
    await this.options.journal.recheckLater(envelopeId, this.options.recheckMs);
    return { kind: 'unknown' };
  }

  /** One look at the envelope's fate and, while it is open, one resubmission. Undefined: still open. */
  private async lookAndResend(envelopeId: string, facts: EnvelopeFacts, settling: Settling): Promise<SendOutcome | undefined> {
    const { client, journal } = this.options;
    const fate = await envelopeFate(client, facts, [...settling.sentHashes]);
    if (fate.kind === 'applied') return this.applied(envelopeId, facts.hash, { ledger: fate.ledger, feeCharged: fate.feeCharged, hash: fate.appliedHash });
    if (fate.kind === 'failed_on_ledger') return this.failed(envelopeId, 'tx_failed', true, fate.ledger);
    if (fate.kind === 'never_applies') return this.failed(envelopeId, `never_applies: ${fate.reason}`, true);
    if (fate.beyondRetention) {
      // Absence will never prove anything now: it stays open for an operator (/readyz warns, ledger:audit lists it).
      this.options.logger.warn({ hash: facts.hash, firstLedger: facts.firstLedger }, "envelope's ledgers left the ledger API's history window: settle it by hand");
    }
    settling.tx = await this.bumpIfWaiting(envelopeId, settling.tx, settling.bidding, facts, fate.latestLedger);
    settling.sentHashes.add(settling.tx.hash().toString('hex'));
    if ((await journal.markSubmitted(envelopeId)) === undefined) return { kind: 'elsewhere' };
    const answer = await client.submit(settling.tx);
    switch (answer.kind) {
      case 'applied':
        return this.applied(envelopeId, facts.hash, answer);
      case 'refused':
        // It may still have applied, or the queue holds an earlier one; but the refusal says what the queue would take.
        this.refusedResubmission(settling.tx, answer.error, settling.bidding, facts);
        return undefined;
      case 'not_delivered':
      case 'unclear':
        return undefined;
    }
  }

  /**
   * An envelope Horizon has let wait `bumpAfterLedgers` ledgers (surge pricing: its bid is too low
   * for the ledgers closing now) is wrapped again at a bid core's queue takes in its place: ten
   * times the queued bid, at least what a refusal named (FeeBumper.raise). None when
   * MAX_FEE_STROOPS forbids that: it waits until the queue drops it. The new fee bump is stored
   * before it is sent, like every envelope; its inner transaction, hash and sequence number are
   * the same, so the journal's rule holds: whichever fee bump applies, it applies once.
   */
  private async bumpIfWaiting(
    envelopeId: string,
    tx: Transaction | FeeBumpTransaction,
    bidding: Bidding,
    facts: EnvelopeFacts,
    latestLedger: number,
  ): Promise<Transaction | FeeBumpTransaction> {
    // the envelope last sent waits in the queue unless the queue refused it
    if (tx !== bidding.refused) bidding.queued = tx;
    const waited = await this.options.journal.noteWaiting(envelopeId, latestLedger);
    if (waited < this.options.bumpAfterLedgers) return tx;
    const raised = await (await this.options.bumper()).raise(bidding.queued, bidding.named);
    if (!raised) {
      this.options.logger.info(
        { hash: facts.hash, waitedLedgers: waited, queuedFee: bidding.queued.fee, namedPerOperation: bidding.named?.toString() },
        'envelope still waiting: no raise the queue would take is within MAX_FEE_STROOPS, waiting for the queue to drop it',
      );
      return tx;
    }
    if (raised.hash().equals(tx.hash())) return tx;
    const stored = await this.options.journal.rebid(envelopeId, {
      envelopeXdr: raised.toEnvelope().toXDR('base64'),
      outerHash: raised.hash().toString('hex'),
      bidStroops: BigInt(raised.fee),
      bidLedger: latestLedger,
    });
    if (!stored) return tx;
    this.events.emit('bump');
    this.options.logger.info({ hash: facts.hash, waitedLedgers: waited, fee: raised.fee }, 'envelope still waiting: fee bid raised');
    return raised;
  }

  /**
   * A resubmission the queue refused (a raise that did not outbid it, or the same bytes meeting a
   * full queue): counted and logged, and what the refusal names is the least the next raise bids.
   */
  private refusedResubmission(tx: Transaction | FeeBumpTransaction, refusal: LedgerRejectedError, bidding: Bidding, facts: EnvelopeFacts): void {
    this.events.emit('result', 'resubmission_refused');
    bidding.refused = tx;
    bidding.named = bidNamedBy(refusal, tx);
    this.options.logger.warn(
      { hash: facts.hash, outerHash: tx.hash().toString('hex'), fee: tx.fee, code: refusal.code, namedFee: refusal.feeCharged?.toString() },
      'resubmission refused: the next raise bids at least what the refusal names',
    );
  }

  /** `applied.hash` is the envelope that applied: which fee bump of the inner transaction `hash`. */
  private async applied(envelopeId: string, hash: string, applied: { ledger: number; feeCharged: bigint; hash: string }): Promise<SendOutcome> {
    this.events.emit('result', 'tx_success');
    if (!(await this.options.lifecycle.confirm(envelopeId, hash, applied))) return { kind: 'elsewhere' };
    this.events.emit('feePaid', applied.feeCharged);
    return { kind: 'applied', ledger: applied.ledger };
  }

  private async failed(envelopeId: string, reason: string, proven: boolean, ledger?: number): Promise<SendOutcome> {
    const recorded = await this.options.lifecycle.fail(envelopeId, reason, [], { proven, ledger });
    return recorded ? { kind: 'failed', reason } : { kind: 'elsewhere' };
  }
}

/** Why a submission's answer left its envelope to the ledger's evidence, for the log. */
function reasonOf(answer: SubmitAnswer): string {
  switch (answer.kind) {
    case 'applied':
      return 'applied';
    case 'refused':
    case 'not_delivered':
      return answer.error.message;
    case 'unclear':
      return answer.reason;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
