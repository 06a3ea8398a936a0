import { paymentMintRefused, paymentMintStarted, paymentMintStartedStatement, paymentMintsConfirmed } from '../../db/repositories/payment.repository';
import { NEVER_SUCCEEDS, jobOf, type EntryKind } from './entry-kind';
import { tokenPayment } from './transfer';

/** A verified payment's tokens to the buyer's wallet (`to`): consumes the reference (paid -> minting), once. */
export interface PaymentMintCommand {
  kind: 'payment_mint';
  reference: string;
  userId: string;
  to: string;
  stroops: bigint;
}

export function paymentMintCommand(command: Omit<PaymentMintCommand, 'kind'>): PaymentMintCommand {
  return { kind: 'payment_mint', ...command };
}

/**
 * A paid purchase's mint, from the distribution account. It claims its payment in the committing
 * transaction (one live mint per payment: the claim, and the partial unique index behind it), the
 * service finishes it by itself, and only a refusal that trying again never mends ends it; its
 * confirmation makes the payment minted, its refusal sends the payment back or fails it
 * (domain/payment-lifecycle.ts).
 */
export const paymentMint: EntryKind<PaymentMintCommand> = {
  name: 'payment_mint',
  record: true,
  mustFinish: true,
  supply: 'minted',
  claim: {
    of: 'payment',
    take: (tx, entry) => paymentMintStarted(tx, { reference: entry.paymentReference!, stroops: entry.amountStroops, to: entry.toPublicKey }),
    statement: paymentMintStartedStatement,
  },
  async prepare(command, { ledger }) {
    const from = ledger.keys.distribution.publicKey();
    const entry = { kind: 'payment_mint' as const, userId: command.userId, fromPublicKey: from, toPublicKey: command.to, amountStroops: command.stroops, assetCode: ledger.asset.getCode(), paymentReference: command.reference };
    return { entry };
  },
  async job(entry, { ledger }) {
    return jobOf(ledger.distribution, entry, [tokenPayment(ledger.asset, entry.toPublicKey, entry.amountStroops)]);
  },
  refusal: (code) => (code !== undefined && NEVER_SUCCEEDS.has(code) ? 'final' : 'again'),
  async confirmed(tx, entries, hash, events) {
    await paymentMintsConfirmed(tx, events, entries.flatMap((e) => (e.paymentReference ? [e.paymentReference] : [])), hash);
  },
  async failed(tx, entries, events) {
    for (const e of entries) if (e.paymentReference) await paymentMintRefused(tx, events, e.paymentReference, e.failureCode ?? 'unknown');
  },
};
