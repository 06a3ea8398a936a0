import crypto from 'node:crypto';
import type { PaystackClient, InitializedTransaction } from '../clients/paystack.client';
import type { PaymentRepository, PaymentRow } from '../db/repositories/payment.repository';
import type { UserRepository } from '../db/repositories/user.repository';
import type { WalletRepository } from '../db/repositories/wallet.repository';
import { formatStroops, MAX_STROOPS, STROOPS_PER_UNIT } from '../domain/amounts';
import { AppError } from '../errors/app-error';
import type { TokenLedger } from '../ledger/token-ledger';
import type { Logger } from '../logger';

/**
 * What settling a reference came to, for verify-payment's JSON, the callback page and the webhook
 * inbox alike. Only `minted` and `verified` consumed the reference in this call.
 */
export type SettleOutcome =
  /** This call consumed the reference: its mint is on the ledger (`minted`) or on its way there (`verified`). */
  | { kind: 'minted' | 'verified'; payment: PaymentRow; amountKobo: bigint; customerId: string }
  /** An earlier (or concurrent) call consumed it: nothing is minted again. */
  | { kind: 'already_processed'; payment: PaymentRow }
  /** Paid, but the ledger refused its mint for good (payment.failureReason says why). */
  | { kind: 'mint_failed'; payment: PaymentRow }
  /** The provider does not report it paid (yet, or ever: `status` says which). */
  | { kind: 'not_paid'; status: string }
  /** Paid, but not the recorded amount in NGN: never minted, an operator looks. */
  | { kind: 'mismatch' }
  /** Not a reference of this service, or the provider does not know it. */
  | { kind: 'unknown' };

export interface PaymentServiceOptions {
  publicBaseUrl: string;
  tokensPerNaira: string;
  tokenCode: string;
  /** How long verify waits for the mint before answering (the journal's reconciler finishes it anyway). */
  mintWaitMs: number;
}

/**
 * Naira in, tokens out, exactly once. verify-payment, the callback page and the webhook inbox all
 * call settle(): the provider must say success in NGN for the recorded amount, then one database
 * transaction consumes the reference and commits the mint's journal entry (a unique index allows
 * one per reference); the journal signs, sends and settles it.
 */
export class PaymentService {
  constructor(
    private readonly provider: PaystackClient,
    private readonly payments: PaymentRepository,
    private readonly users: UserRepository,
    private readonly wallets: WalletRepository,
    private readonly ledger: TokenLedger,
    private readonly options: PaymentServiceOptions,
    private readonly logger: Logger,
  ) {}

  /** Records the reference with the user and amount, then asks the provider for a checkout. */
  async createIntent(userId: string, amountKobo: bigint): Promise<InitializedTransaction> {
    const user = await this.users.findById(userId);
    if (!user) throw new AppError('NOT_FOUND', 'User not found');
    // Refused before anyone is charged: tokens over one ledger payment's maximum could never be minted,
    // so a buyer would pay and wait forever (possible when TOKENS_PER_NAIRA is large).
    const tokens = this.tokensFor(amountKobo);
    // A small amount at a small TOKENS_PER_NAIRA rounds down to nothing: never take money for 0 stroops.
    if (tokens === 0n) {
      throw new AppError('VALIDATION', `Amount is too small: it would mint no ${this.options.tokenCode} at ${this.options.tokensPerNaira} per Naira`);
    }
    if (tokens > MAX_STROOPS) {
      throw new AppError('VALIDATION', `Amount is too large: it would mint more than ${formatStroops(MAX_STROOPS)} ${this.options.tokenCode}`);
    }
    const reference = `wlt-${crypto.randomUUID()}`;
    await this.payments.insertInitialized({ reference, userId, amountKobo });
    return this.provider.initialize({
      email: user.email,
      amountKobo,
      reference,
      callbackUrl: `${this.options.publicBaseUrl}/api/payments/callback`,
      metadata: { userId },
    });
  }

  async find(reference: string): Promise<PaymentRow | undefined> {
    return this.payments.find(reference);
  }

  /** The shared path of verify, callback and webhook. Safe to call any number of times at once. */
  async settle(reference: string): Promise<SettleOutcome> {
    const known = await this.payments.find(reference);
    if (!known) return { kind: 'unknown' };
    if (known.status === 'verified' || known.status === 'minted') return { kind: 'already_processed', payment: known };
    if (known.failureReason) return { kind: 'mint_failed', payment: known };

    const verified = await this.provider.verify(reference);
    if (!verified) return { kind: 'unknown' };
    if (verified.status !== 'success') {
      if (verified.status === 'failed') await this.payments.markProviderFailed(reference, verified.raw);
      return { kind: 'not_paid', status: verified.status };
    }
    if (verified.currency !== 'NGN' || verified.amountKobo !== known.amountKobo) {
      this.logger.warn({ reference, currency: verified.currency }, 'provider amount or currency differs from the recorded payment');
      return { kind: 'mismatch' };
    }
    // A buyer deleted after paying is still owed the tokens: they go to the archived wallet, whose
    // key the service keeps, rather than being refused.
    const wallet = (await this.wallets.findByUserId(known.userId)) ?? (await this.wallets.findArchivedByUserId(known.userId));
    if (!wallet) return { kind: 'unknown' };

    const tokens = this.tokensFor(known.amountKobo);
    let consumed: PaymentRow | undefined;
    const write = await this.ledger.mintForPayment(
      { reference, userId: known.userId, to: wallet.publicKey, stroops: tokens, waitMs: this.options.mintWaitMs },
      async (tx) => {
        consumed = await this.payments.consume(tx, reference, tokens, wallet.publicKey, verified.raw);
        return consumed !== undefined;
      },
    );
    if (!write || !consumed) {
      const now = await this.payments.find(reference);
      return now?.failureReason ? { kind: 'mint_failed', payment: now } : { kind: 'already_processed', payment: now ?? known };
    }
    return { kind: write.state === 'confirmed' ? 'minted' : 'verified', payment: consumed, amountKobo: verified.amountKobo, customerId: verified.customerId };
  }

  /** Tokens for a Naira amount in kobo: kobo x TOKENS_PER_NAIRA / 100, in stroops, rounded down. */
  tokensFor(amountKobo: bigint): bigint {
    const [whole, fraction = ''] = this.options.tokensPerNaira.split('.');
    const stroopsPerNaira = BigInt(whole!) * STROOPS_PER_UNIT + BigInt(fraction.padEnd(7, '0'));
    return (amountKobo * stroopsPerNaira) / 100n;
  }
}
