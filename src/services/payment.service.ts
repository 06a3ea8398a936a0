import crypto from 'node:crypto';
import type { InitializedTransaction, PaystackClient, VerifiedTransaction } from '../clients/paystack.client';
import type { Database } from '../db/client';
import type { BuyerWallet, PaymentRepository, PaymentRow } from '../db/repositories/payment.repository';
import type { ReversalRepository } from '../db/repositories/reversal.repository';
import type { UserRepository } from '../db/repositories/user.repository';
import type { WalletRepository } from '../db/repositories/wallet.repository';
import { formatStroops, MAX_STROOPS } from '../domain/amounts';
import { ExchangeRate } from '../domain/exchange-rate';
import { providerVerdict, type PaymentState } from '../domain/payment-lifecycle';
import { AppError } from '../errors/app-error';
import { errorReason } from '../errors/loggable-error';
import { paymentMintCommand } from '../ledger/kinds/payment-mint';
import type { JournalWrites } from '../ledger/ledger-bootstrap';
import type { Logger } from '../logger';

/**
 * What settling a reference came to, for verify-payment's JSON, the callback page, the webhook
 * inbox and the provider sweep alike. Only `minted` and `verified` consumed the reference in this call.
 */
export type SettleOutcome =
  /**
   * This call consumed the reference: its mint is on the ledger (`minted`), or on its way there
   * (`verified`: in the journal, or waiting for the buyer's wallet to be activated).
   */
  | { kind: 'minted' | 'verified'; payment: PaymentRow; amountKobo: bigint; tokensStroops: bigint; customerId: string }
  /** An earlier (or concurrent) call consumed it: nothing is minted again. */
  | { kind: 'already_processed'; payment: PaymentRow }
  /** Never minted, for the recorded reason (payment.failureReason: a mismatch, the ledger's refusal...). */
  | { kind: 'mint_failed'; payment: PaymentRow }
  /** The provider does not report it paid: not yet (`final: false`), or it failed or was reversed. */
  | { kind: 'not_paid'; status: string; final: boolean }
  /** Paid, but not the recorded amount in NGN: recorded as failed with the reason, never minted. */
  | { kind: 'mismatch' }
  /** Not a reference of this service, or the provider does not know it. */
  | { kind: 'unknown' };

/**
 * What writing a paid payment's mint came to: on the network, in the journal (the reconciler
 * finishes it), all taken by the buyer's debt, waiting for the buyer's wallet (the sweep comes
 * back), or already taken by another caller.
 */
export type MintStep = 'confirmed' | 'in_journal' | 'covered_by_debt' | 'waiting_for_wallet' | 'taken_elsewhere';

export interface PaymentServiceOptions {
  publicBaseUrl: string;
  tokensPerNaira: string;
  tokenCode: string;
  /** How long verify waits for the mint before answering (the journal's reconciler finishes it anyway). */
  mintWaitMs: number;
  /** When the provider sweep first asks about a new intent. */
  firstCheckMs: number;
  /** Stellar's public network: a test-mode provider's payments are refused (test cards would mint real tokens). */
  publicNetwork: boolean;
}

export interface PaymentServiceDeps {
  /** The use case opens the transaction its debt settlement runs in; the repositories take it. */
  db: Database;
  provider: PaystackClient;
  payments: PaymentRepository;
  users: UserRepository;
  wallets: WalletRepository;
  reversals: ReversalRepository;
  journal: JournalWrites;
  options: PaymentServiceOptions;
  logger: Logger;
}

/**
 * Naira in, tokens out, exactly once. verify-payment, the callback page, the webhook inbox and the
 * provider sweep all call settle(). The provider must say success in NGN for the recorded amount;
 * then one conditional update consumes the reference (initialized -> paid), and, once the buyer's
 * wallet is on the ledger, one database transaction moves the payment to `minting` and commits the
 * mint's journal entry (a unique index allows one live entry per reference); the journal signs,
 * sends and settles it. The states and moves are in src/domain/payment-lifecycle.ts.
 */
export class PaymentService {
  private readonly rate: ExchangeRate;

  constructor(private readonly deps: PaymentServiceDeps) {
    this.rate = new ExchangeRate(deps.options.tokensPerNaira);
  }

  /** Records the reference with the user and amount, then asks the provider for a checkout. */
  async createIntent(userId: string, amountKobo: bigint): Promise<InitializedTransaction> {
    const user = await this.deps.users.findById(userId);
    if (!user) throw new AppError('NOT_FOUND', 'User not found');
    // Refused before anyone is charged: tokens over one ledger payment's maximum could never be minted,
    // so a buyer would pay and wait forever (possible when TOKENS_PER_NAIRA is large).
    const tokens = this.tokensFor(amountKobo);
    // A small amount at a small TOKENS_PER_NAIRA rounds down to nothing: never take money for 0 stroops.
    if (tokens === 0n) {
      throw new AppError('VALIDATION', `Amount is too small: it would mint no ${this.deps.options.tokenCode} at ${this.deps.options.tokensPerNaira} per Naira`);
    }
    if (tokens > MAX_STROOPS) {
      throw new AppError('VALIDATION', `Amount is too large: it would mint more than ${formatStroops(MAX_STROOPS)} ${this.deps.options.tokenCode}`);
    }
    const reference = `wlt-${crypto.randomUUID()}`;
    await this.deps.payments.insertInitialized({ reference, userId, amountKobo }, this.deps.options.firstCheckMs);
    return this.deps.provider.initialize({
      email: user.email,
      amountKobo,
      reference,
      callbackUrl: `${this.deps.options.publicBaseUrl}/api/payments/callback`,
      metadata: { userId },
    });
  }

  async find(reference: string): Promise<PaymentRow | undefined> {
    return this.deps.payments.find(reference);
  }

  /** Operators' list: a page of payments, newest first, optionally of one state. */
  async list(filter: { status?: PaymentState; limit: number; offset: number }): Promise<{ items: PaymentRow[]; total: number }> {
    const { rows, total } = await this.deps.payments.page(filter);
    return { items: rows, total };
  }

  /**
   * The shared path of verify, callback, webhook and sweep, safe to call any number of times at
   * once: find the payment, ask the provider, check the amount and currency, consume the
   * reference, write the mint command, answer. `found`: the payment as the caller just read it
   * (verify-payment checks its owner first), so it is not read twice.
   */
  async settle(reference: string, found?: PaymentRow): Promise<SettleOutcome> {
    const known = found ?? (await this.deps.payments.find(reference));
    if (!known) return { kind: 'unknown' };
    const decided = await this.decidedOutcome(known);
    if (decided) return decided;

    const verified = await this.deps.provider.verify(reference);
    if (!verified) return { kind: 'unknown' };
    const unpaid = await this.unpaidOutcome(reference, verified);
    if (unpaid) return unpaid;

    const refusal = this.refusalOf(known, verified);
    if (refusal) {
      this.deps.logger.warn({ reference, reason: refusal }, 'paid payment refused');
      const refused = await this.deps.payments.recordRefused(reference, refusal, verified.raw);
      return refused ? { kind: 'mismatch' } : this.outcomeAfterLosingRace(reference);
    }
    const recorded = await this.deps.payments.recordPaid(reference, verified.raw);
    if (!recorded) return this.outcomeAfterLosingRace(reference);
    const paid = recorded.payment;

    // Consumed: from here the answer is success whatever the network does.
    const mint = await this.mintOrLeaveForSweep(paid, recorded.buyerWallet);
    const now = (await this.deps.payments.find(reference)) ?? paid;
    const kind = mint === 'confirmed' ? 'minted' : 'verified';
    return { kind, payment: now, amountKobo: verified.amountKobo, tokensStroops: this.tokensFor(paid.amountKobo), customerId: verified.customerId };
  }

  /** The provider's answer when it is not a success: not yet, failed, or reversed before any mint (recorded). */
  private async unpaidOutcome(reference: string, verified: VerifiedTransaction): Promise<SettleOutcome | undefined> {
    const verdict = providerVerdict(verified.status);
    switch (verdict.kind) {
      case 'not_yet':
        return { kind: 'not_paid', status: verified.status, final: false };
      case 'failed':
        await this.deps.payments.recordProviderFailed(reference, verified.raw);
        return { kind: 'not_paid', status: verified.status, final: true };
      case 'reversed':
        await this.deps.payments.recordRefused(reference, 'The provider reversed the payment before it was minted', verified.raw);
        return { kind: 'not_paid', status: verified.status, final: true };
      default:
        return undefined;
    }
  }

  /**
   * A mint that cannot be written now (the network never reached since start) is left `paid`: the
   * sweep writes it. `buyerWallet`: the wallet as the caller's statement just read it, if it did.
   */
  private async mintOrLeaveForSweep(payment: PaymentRow, buyerWallet?: BuyerWallet): Promise<MintStep | 'left_for_sweep'> {
    return this.mintWhenReady(payment, buyerWallet).catch((err: unknown) => {
      this.deps.logger.warn({ reference: payment.reference, reason: errorReason(err) }, 'paid payment left for the sweep to mint');
      return 'left_for_sweep' as const;
    });
  }

  /**
   * The answer for a payment past `initialized` (consumed, or refused for good), without asking the
   * provider again. A `paid` one whose mint is not in the journal yet (its wallet was pending, or
   * its caller died) gets its mint now if the wallet is ready: the sweep does the same.
   */
  private async decidedOutcome(payment: PaymentRow): Promise<SettleOutcome | undefined> {
    if (payment.status === 'paid') {
      await this.mintOrLeaveForSweep(payment);
      return { kind: 'already_processed', payment: (await this.deps.payments.find(payment.reference)) ?? payment };
    }
    if (payment.status === 'minting' || payment.status === 'minted') return { kind: 'already_processed', payment };
    if (payment.failureReason) return { kind: 'mint_failed', payment };
    return undefined;
  }

  /** Another caller moved the payment first (a move is made by exactly one): answer from where it is now. */
  private async outcomeAfterLosingRace(reference: string): Promise<SettleOutcome> {
    const now = await this.deps.payments.find(reference);
    if (!now) return { kind: 'unknown' };
    return (await this.decidedOutcome(now)) ?? { kind: 'already_processed', payment: now };
  }

  /** Why a provider's success must never mint: the amount or currency differs, or test money on the public network. */
  private refusalOf(known: PaymentRow, verified: VerifiedTransaction): string | undefined {
    if (verified.currency !== 'NGN' || verified.amountKobo !== known.amountKobo) {
      return `The provider reports ${verified.amountKobo} kobo in ${verified.currency}; the payment was recorded as ${known.amountKobo} kobo in NGN`;
    }
    if (this.deps.options.publicNetwork && verified.raw.domain === 'test') {
      return "The provider reports a test-mode payment, and the token is on Stellar's public network";
    }
    return undefined;
  }

  /**
   * Commits a paid payment's mint once the buyer's wallet is on the ledger: a mint to a wallet
   * still being activated would be refused (no account, no trustline). The buyer's debt (tokens a
   * reversal could not take back) is settled first, once, from this purchase's tokens; only the
   * rest is minted, and a purchase the debt takes whole is done without a ledger write.
   */
  private async mintWhenReady(payment: PaymentRow, buyerWallet?: BuyerWallet): Promise<MintStep> {
    // A buyer deleted after paying is still owed the tokens: they go to the archived wallet, whose
    // key the service keeps (it was active when archived), rather than being refused.
    const wallet = buyerWallet === undefined ? await this.deps.wallets.findByUserId(payment.userId) : buyerWallet;
    const destination = wallet ? (wallet.status === 'active' ? wallet.publicKey : undefined) : (await this.deps.wallets.findArchivedByUserId(payment.userId))?.publicKey;
    if (!destination) return 'waiting_for_wallet';
    const tokens = this.tokensFor(payment.amountKobo);
    const settled = await this.settleDebtOnce(payment.reference, tokens);
    if (settled === undefined) return 'taken_elsewhere';
    if (settled > 0n) this.deps.logger.info({ reference: payment.reference, settledStroops: String(settled) }, "purchase settles the buyer's debt first");
    const toMint = tokens - settled;
    if (toMint === 0n) {
      await this.deps.payments.recordCoveredByDebt(payment.reference, destination);
      return 'covered_by_debt';
    }
    // The write consumes the reference (paid -> minting) in the transaction that commits the mint's entry.
    const mint = paymentMintCommand({ reference: payment.reference, userId: payment.userId, to: destination, stroops: toMint });
    const result = await this.deps.journal.write(mint, { waitMs: this.deps.options.mintWaitMs });
    if (!result.written) return 'taken_elsewhere';
    return result.outcome.status === 'confirmed' ? 'confirmed' : 'in_journal';
  }

  /**
   * Decides, once, how much of the buyer's debt this paid purchase settles (at most `tokens`), in
   * one transaction: the payment locked, then the buyer's debt lock, so two purchases never settle
   * the same debt; a retry reads the decision already made. Undefined when the payment is not
   * `paid` any more.
   */
  private async settleDebtOnce(reference: string, tokens: bigint): Promise<bigint | undefined> {
    const { db, payments, reversals } = this.deps;
    // Most buyers owe nothing: that is decided in one statement; the lock is for those who owe.
    if (await payments.recordSettlesNoDebt(reference)) return 0n;
    return db.transaction(async (tx) => {
      const payment = await payments.lockForDebt(tx, reference);
      if (!payment || payment.status !== 'paid') return undefined;
      if (payment.debtSettledStroops !== null) return payment.debtSettledStroops;
      await reversals.lockDebtOf(tx, payment.userId);
      const debt = await reversals.debtOf(tx, payment.userId);
      const settled = debt <= 0n ? 0n : debt < tokens ? debt : tokens;
      await payments.recordDebtSettled(tx, reference, settled);
      return settled;
    });
  }

  /** Tokens for a Naira amount in kobo: kobo x TOKENS_PER_NAIRA / 100, in stroops, rounded down. */
  tokensFor(amountKobo: bigint): bigint {
    return this.rate.tokensFor(amountKobo);
  }
}
