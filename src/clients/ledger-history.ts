import { Asset, FeeBumpTransaction, StrKey, xdr } from '@stellar/stellar-sdk';
import { NATIVE, type MovedAsset, type MovementOperation } from '../domain/ledger-movement';
import type { LedgerMovement } from './ledger-api';

// The history as both ledger adapters read it. Positions are TOIDs (ledger << 32 | transaction
// order << 12 | operation order): RPC's getTransactions cursors and Horizon's paging tokens alike.
//
// What a successful transaction moved, read from its envelope and result XDR: both ledger adapters
// decode the history through here (RPC hands over whole transactions, Horizon joins each
// operation's transaction), so a movement means the same whichever API the service reads.

/** The signed transaction's body: a fee bump's inner one; a v0 envelope's source as a key. */
function innerTransactionOf(envelope: xdr.TransactionEnvelope): { source: string; operations: xdr.Operation[] } {
  switch (envelope.switch().name) {
    case 'envelopeTypeTxV0': {
      const tx = envelope.v0().tx();
      return { source: StrKey.encodeEd25519PublicKey(tx.sourceAccountEd25519()), operations: tx.operations() };
    }
    case 'envelopeTypeTxFeeBump': {
      const tx = envelope.feeBump().tx().innerTx().v1().tx();
      return { source: accountOf(tx.sourceAccount()), operations: tx.operations() };
    }
    default: {
      const tx = envelope.v1().tx();
      return { source: accountOf(tx.sourceAccount()), operations: tx.operations() };
    }
  }
}

/** The results of the operations of a successful transaction (a fee bump's inner ones), or undefined when it did not succeed. */
function operationResultsOf(result: xdr.TransactionResult): xdr.OperationResult[] | undefined {
  const outcome = result.result();
  switch (outcome.switch().name) {
    case 'txSuccess':
      return outcome.results();
    case 'txFeeBumpInnerSuccess':
      return outcome.innerResultPair().result().result().results();
    default:
      return undefined;
  }
}

/** A muxed or plain account as its G... key: a muxed address's money is its base account's. */
function accountOf(account: xdr.MuxedAccount): string {
  return account.switch().name === 'keyTypeMuxedEd25519'
    ? StrKey.encodeEd25519PublicKey(account.med25519().ed25519())
    : StrKey.encodeEd25519PublicKey(account.ed25519());
}

function assetOf(asset: xdr.Asset): MovedAsset {
  const read = Asset.fromOperation(asset);
  return read.isNative() ? NATIVE : { code: read.getCode(), issuer: read.getIssuer() };
}

/**
 * What a strict-receive path payment took from its sender: stellar-core's own rule (Horizon's
 * SendAmount): with no offers crossed the amount that arrived; else what the first hop's offers
 * bought of the sender's asset.
 */
function sentByStrictReceive(success: xdr.PathPaymentStrictReceiveResultSuccess): bigint {
  const offers = success.offers();
  if (offers.length === 0) return success.last().amount().toBigInt();
  const first = offers[0]!.value().assetBought().toXDR('base64');
  let sent = 0n;
  for (const offer of offers) {
    if (offer.value().assetBought().toXDR('base64') !== first) break;
    sent += offer.value().amountBought().toBigInt();
  }
  return sent;
}

/** One operation's movement, or undefined when it moves nothing (or moved nothing: a merge of an empty account). */
function movementOf(operation: xdr.Operation, result: xdr.OperationResult, index: number, txSource: string): LedgerMovement | undefined {
  const source = operation.sourceAccount() ? accountOf(operation.sourceAccount()!) : txSource;
  const body = operation.body();
  const of = (type: MovementOperation, from: string, to: string, asset: MovedAsset, stroops: bigint, sent?: { asset: MovedAsset; stroops: bigint }): LedgerMovement | undefined =>
    stroops > 0n ? { operationIndex: index, type, from, to, asset, stroops, sent: sent ?? { asset, stroops } } : undefined;
  switch (body.switch().name) {
    case 'payment': {
      const op = body.paymentOp();
      return of('payment', source, accountOf(op.destination()), assetOf(op.asset()), op.amount().toBigInt());
    }
    case 'pathPaymentStrictSend': {
      const op = body.pathPaymentStrictSendOp();
      const arrived = result.tr().pathPaymentStrictSendResult().success().last().amount().toBigInt();
      return of('path_payment_strict_send', source, accountOf(op.destination()), assetOf(op.destAsset()), arrived, { asset: assetOf(op.sendAsset()), stroops: op.sendAmount().toBigInt() });
    }
    case 'pathPaymentStrictReceive': {
      const op = body.pathPaymentStrictReceiveOp();
      const sent = sentByStrictReceive(result.tr().pathPaymentStrictReceiveResult().success());
      return of('path_payment_strict_receive', source, accountOf(op.destination()), assetOf(op.destAsset()), op.destAmount().toBigInt(), { asset: assetOf(op.sendAsset()), stroops: sent });
    }
    case 'clawback': {
      // The issuer takes the tokens back from `from`: they leave that wallet for the issuer (and are burnt).
      const op = body.clawbackOp();
      return of('clawback', accountOf(op.from()), source, assetOf(op.asset()), op.amount().toBigInt());
    }
    case 'createAccount': {
      const op = body.createAccountOp();
      return of('create_account', source, StrKey.encodeEd25519PublicKey(op.destination().ed25519()), NATIVE, op.startingBalance().toBigInt());
    }
    case 'accountMerge': {
      // What moved is only in the result: the merged account's whole XLM balance.
      const merged = result.tr().accountMergeResult().sourceAccountBalance().toBigInt();
      return of('account_merge', source, accountOf(body.destination()), NATIVE, merged);
    }
    default:
      return undefined;
  }
}

export interface DecodedTransaction {
  /** The signed transaction's hash (a fee bump's inner one). */
  innerHash: string;
  /** Every movement of the transaction, in operation order; empty when it did not succeed. */
  movements: LedgerMovement[];
  /** What the network charged its fee source, in stroops. */
  feeCharged: bigint;
}

/**
 * A transaction's movements from its envelope and result (base64 XDR). `appliedHash` is the hash
 * the API named it by: for a plain transaction that is its inner hash already, and only a fee
 * bump's inner transaction is hashed here. Throws when the XDR does not decode.
 */
export function decodeTransaction(envelopeXdr: string, resultXdr: string, appliedHash: string, networkPassphrase: string): DecodedTransaction {
  const envelope = xdr.TransactionEnvelope.fromXDR(envelopeXdr, 'base64');
  const innerHash =
    envelope.switch().name === 'envelopeTypeTxFeeBump' ? new FeeBumpTransaction(envelope, networkPassphrase).innerTransaction.hash().toString('hex') : appliedHash;
  const result = xdr.TransactionResult.fromXDR(resultXdr, 'base64');
  const feeCharged = result.feeCharged().toBigInt();
  const results = operationResultsOf(result);
  if (!results) return { innerHash, movements: [], feeCharged };
  const { source, operations } = innerTransactionOf(envelope);
  const movements: LedgerMovement[] = [];
  operations.forEach((operation, index) => {
    const result = results[index];
    const movement = result && movementOf(operation, result, index, source);
    if (movement) movements.push(movement);
  });
  return { innerHash, movements, feeCharged };
}

/** The ledger a TOID cursor points into (its upper 32 bits). */
export function ledgerOfToid(cursor: string): number {
  return Number(BigInt(cursor) >> 32n);
}

/** The later of two TOID cursors: a position never moves back. */
export function laterCursor(current: string | undefined, answered: string): string | undefined {
  if (!/^\d+$/.test(answered) || BigInt(answered) === 0n) return current;
  if (current === undefined) return answered;
  return BigInt(answered) > BigInt(current) ? answered : current;
}
