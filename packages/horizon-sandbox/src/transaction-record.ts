import { Asset, FeeBumpTransaction, MuxedAccount, xdr, type Memo, type Transaction } from '@stellar/stellar-sdk';
import { baseAccountId } from './account-ids';
import { formatAmount, parseAmount } from './amounts';
import type { Envelope, LedgerPosition, TransactionOutcome } from './apply-transaction';
import type { AssetRef, StoredPayment, StoredTransaction, TransactionPreconditions } from './ledger-history';
import { resultCodes, transactionResultXdr, type TransactionResultModel } from './result-xdr';
import { envelopeHashHex } from './envelope-hash';

/** Horizon's TOID: ledger, application order and operation index packed into one sortable int64. */
export function toid(ledger: number, transactionOrder: number, operationIndex: number): string {
  return ((BigInt(ledger) << 32n) | (BigInt(transactionOrder) << 12n) | BigInt(operationIndex)).toString();
}

// The sandbox does not produce ledger-entry change meta; these are valid, empty encodings so that
// clients decoding the fields get well-formed XDR rather than a missing field.
const EMPTY_LEDGER_ENTRY_CHANGES = 'AAAAAA==';

function emptyResultMeta(operationCount: number): string {
  const meta = new xdr.TransactionMetaV2({
    txChangesBefore: [],
    operations: Array.from({ length: operationCount }, () => new xdr.OperationMeta({ changes: [] })),
    txChangesAfter: [],
  });
  return new xdr.TransactionMeta(2, meta).toXDR('base64');
}

export function envelopeXdr(envelope: Envelope): string {
  return envelope.toEnvelope().toXDR('base64');
}

export function resultXdr(result: TransactionResultModel): string {
  return transactionResultXdr(result).toXDR('base64');
}

export interface Placement extends LedgerPosition {
  /** 1-based position of the transaction in its ledger. */
  applicationOrder: number;
}

/** The history record Horizon would ingest for a transaction that made it into a ledger. */
export function buildTransactionRecord(
  envelope: Envelope,
  outcome: TransactionOutcome,
  placement: Placement,
): StoredTransaction {
  const tx = envelope instanceof FeeBumpTransaction ? envelope.innerTransaction : envelope;
  const signatures = (of: Envelope) => of.signatures.map((signature) => signature.signature().toString('base64'));
  const record: StoredTransaction = {
    hash: envelopeHashHex(envelope),
    pagingToken: toid(placement.ledgerSequence, placement.applicationOrder, 0),
    ledger: placement.ledgerSequence,
    createdAt: placement.closeTime,
    successful: outcome.successful,
    sourceAccount: baseAccountId(tx.source),
    sourceAccountSequence: tx.sequence,
    feeAccount: baseAccountId(envelope instanceof FeeBumpTransaction ? envelope.feeSource : tx.source),
    feeCharged: outcome.result.feeCharged.toString(),
    maxFee: envelope.fee,
    operationCount: tx.operations.length,
    envelopeXdr: envelopeXdr(envelope),
    resultXdr: resultXdr(outcome.result),
    resultMetaXdr: emptyResultMeta(outcome.successful ? tx.operations.length : 0),
    feeMetaXdr: EMPTY_LEDGER_ENTRY_CHANGES,
    ...memoFields(tx.memo),
    signatures: signatures(envelope),
    resultCodes: resultCodes(outcome.result),
  };
  const preconditions = preconditionsOf(tx);
  if (preconditions) record.preconditions = preconditions;
  if (envelope instanceof FeeBumpTransaction) {
    record.feeBump = { hash: record.hash, signatures: record.signatures };
    record.inner = { hash: envelopeHashHex(tx), signatures: signatures(tx), maxFee: tx.fee };
  }
  return record;
}

function memoFields(memo: Memo): Pick<StoredTransaction, 'memoType' | 'memo' | 'memoBytes'> {
  const value = memo.value;
  if (memo.type === 'none' || value === null) return { memoType: 'none' };
  if (memo.type === 'id') return { memoType: 'id', memo: String(value) };
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  if (memo.type === 'text') return { memoType: 'text', memo: bytes.toString('utf8'), memoBytes: bytes.toString('base64') };
  return { memoType: memo.type, memo: bytes.toString('base64') };
}

function preconditionsOf(tx: Transaction): TransactionPreconditions | undefined {
  const preconditions: TransactionPreconditions = {};
  if (tx.timeBounds) {
    preconditions.timebounds = { min_time: tx.timeBounds.minTime };
    if (tx.timeBounds.maxTime !== '0') preconditions.timebounds.max_time = tx.timeBounds.maxTime;
  }
  if (tx.ledgerBounds) {
    preconditions.ledgerbounds = { min_ledger: tx.ledgerBounds.minLedger, max_ledger: tx.ledgerBounds.maxLedger };
  }
  if (tx.minAccountSequence !== undefined) preconditions.min_account_sequence = tx.minAccountSequence;
  if (tx.minAccountSequenceAge) preconditions.min_account_sequence_age = String(tx.minAccountSequenceAge);
  if (tx.minAccountSequenceLedgerGap) preconditions.min_account_sequence_ledger_gap = tx.minAccountSequenceLedgerGap;
  return Object.keys(preconditions).length > 0 ? preconditions : undefined;
}

function assetRef(asset: Asset): AssetRef {
  if (asset.isNative()) return { type: 'native' };
  const type = asset.getAssetType() === 'credit_alphanum4' ? 'credit_alphanum4' : 'credit_alphanum12';
  return { type, code: asset.getCode(), issuer: asset.getIssuer() };
}

/** A muxed (M) destination's id, which CAP-67's events carry as `to_muxed_id`. */
function muxedIdOf(destination: string): { toMuxedId?: string } {
  return destination.startsWith('M') ? { toMuxedId: MuxedAccount.fromAddress(destination, '0').id() } : {};
}

/** The create_account, payment, path payment and account_merge operations of a successful transaction, as /payments lists them. */
export function buildPaymentRecords(envelope: Envelope, placement: Placement): StoredPayment[] {
  const tx = envelope instanceof FeeBumpTransaction ? envelope.innerTransaction : envelope;
  const transactionHash = envelopeHashHex(envelope);
  const payments: StoredPayment[] = [];
  tx.operations.forEach((op, index) => {
    const base = {
      id: toid(placement.ledgerSequence, placement.applicationOrder, index + 1),
      transactionHash,
      ledger: placement.ledgerSequence,
      createdAt: placement.closeTime,
      sourceAccount: baseAccountId(op.source ?? tx.source),
    };
    if (op.type === 'createAccount') {
      payments.push({
        ...base,
        type: 'create_account',
        account: op.destination,
        funder: base.sourceAccount,
        startingBalance: formatAmount(parseAmount(op.startingBalance)),
      });
    } else if (op.type === 'payment') {
      payments.push({
        ...base,
        type: 'payment',
        from: base.sourceAccount,
        to: baseAccountId(op.destination),
        asset: assetRef(op.asset),
        amount: formatAmount(parseAmount(op.amount)),
        ...muxedIdOf(op.destination),
      });
    } else if (op.type === 'pathPaymentStrictReceive' || op.type === 'pathPaymentStrictSend') {
      // a successful one crossed no offer: what was sent is what arrived, in the same asset
      payments.push({
        ...base,
        type: op.type === 'pathPaymentStrictReceive' ? 'path_payment_strict_receive' : 'path_payment_strict_send',
        from: base.sourceAccount,
        to: baseAccountId(op.destination),
        asset: assetRef(op.destAsset),
        amount: formatAmount(parseAmount(op.type === 'pathPaymentStrictReceive' ? op.destAmount : op.sendAmount)),
        ...muxedIdOf(op.destination),
      });
    } else if (op.type === 'accountMerge') {
      payments.push({
        ...base,
        type: 'account_merge',
        account: base.sourceAccount,
        into: baseAccountId(op.destination),
        ...muxedIdOf(op.destination),
      });
    }
  });
  return payments;
}
