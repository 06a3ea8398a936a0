import { Address, Asset, nativeToScVal, xdr } from '@stellar/stellar-sdk';
import { parseAmount } from '../amounts';
import type { AssetRef, ClosedLedger, StoredPayment, StoredTransaction } from '../ledger-history';
import type { EventCursor } from './event-cursor';

/**
 * One CAP-67 event ("unified events", protocol 23, core's EMIT_CLASSIC_EVENTS on) as stellar-rpc
 * stores it: a contract event of the asset's Stellar Asset Contract, whether that contract is
 * deployed or not. Topic and value are base64 ScVals, as getEvents answers them.
 */
export interface ClassicEvent {
  cursor: EventCursor;
  txHash: string;
  /** stellar-rpc's inSuccessfulContractCall: the transaction's success (a failed one keeps its fee event). */
  successful: boolean;
  contractId: string;
  topic: string[];
  value: string;
}

/**
 * The events of one closed ledger, in stellar-rpc's order: the `fee` events of every transaction
 * first (charged before any transaction applies: cursor transaction 0), then each successful
 * transaction's operation events (`transfer`, `mint`, `burn`). Failed transactions move nothing,
 * so they have no operation events. The sandbox's operations that move assets are create_account,
 * payment, path payments (which cross no offer: one movement from the source to the destination, as
 * a payment) and account_merge; the others emit nothing under CAP-67 (set_options, change_trust, ...).
 */
export function classicEvents(ledger: ClosedLedger, networkPassphrase: string): ClassicEvent[] {
  const contracts = contractIdsFor(networkPassphrase);
  const events: ClassicEvent[] = ledger.transactions.map((tx, index) => ({
    cursor: { ledger: ledger.header.sequence, tx: 0, op: 0, event: index },
    txHash: tx.hash,
    successful: tx.successful,
    contractId: contracts(NATIVE),
    topic: [symbol('fee'), address(tx.feeAccount)],
    value: i128(BigInt(tx.feeCharged)),
  }));
  const byHash = new Map(ledger.transactions.map((tx) => [tx.hash, tx]));
  for (const payment of ledger.payments) {
    const tx = byHash.get(payment.transactionHash);
    if (!tx?.successful) continue;
    const movement = movementOf(payment, tx);
    events.push({
      cursor: cursorOf(payment, 0),
      txHash: tx.hash,
      successful: true,
      contractId: contracts(movement.asset),
      ...assetEvent(movement, tx),
    });
  }
  return events;
}

/** One movement of an asset between two accounts, as CAP-67 describes an operation's effect. */
interface Movement {
  asset: AssetRef;
  from: string;
  to: string;
  stroops: bigint;
  toMuxedId?: string;
}

const NATIVE: AssetRef = { type: 'native' };

function movementOf(payment: StoredPayment, tx: StoredTransaction): Movement {
  switch (payment.type) {
    case 'create_account':
      return { asset: NATIVE, from: payment.funder, to: payment.account, stroops: parseAmount(payment.startingBalance) };
    case 'payment':
    case 'path_payment_strict_receive':
    case 'path_payment_strict_send':
      return { ...payment, stroops: parseAmount(payment.amount) };
    case 'account_merge':
      return {
        asset: NATIVE,
        from: payment.account,
        to: payment.into,
        stroops: mergedBalance(tx, operationIndexOf(payment)),
        ...(payment.toMuxedId === undefined ? {} : { toMuxedId: payment.toMuxedId }),
      };
  }
}

/**
 * CAP-67's payment events: `transfer` between two accounts, `mint` when the issuer pays (topics
 * without `from`), `burn` when it is paid (without `to`); between the issuer and itself a transfer.
 * The value is the amount as i128, or a map with `to_muxed_id` when the destination is muxed or the
 * transaction has a memo (a burn never carries one).
 */
function assetEvent(movement: Movement, tx: StoredTransaction): Pick<ClassicEvent, 'topic' | 'value'> {
  const { asset, from, to, stroops } = movement;
  const sep11 = xdr.ScVal.scvString(asset.type === 'native' ? 'native' : `${asset.code}:${asset.issuer}`).toXDR('base64');
  const issuer = asset.type === 'native' ? undefined : asset.issuer;
  const amount = i128(stroops);
  if (issuer === to && issuer !== from) return { topic: [symbol('burn'), address(from), sep11], value: amount };
  const value = withMuxedId(stroops, toMuxedId(movement, tx)) ?? amount;
  if (issuer === from && issuer !== to) return { topic: [symbol('mint'), address(to), sep11], value };
  return { topic: [symbol('transfer'), address(from), address(to), sep11], value };
}

/** CAP-67's `to_muxed_id`: a muxed destination's id (u64), else the transaction's memo (id: u64, text: string, hash/return: bytes). */
function toMuxedId(movement: Movement, tx: StoredTransaction): xdr.ScVal | undefined {
  if (movement.toMuxedId !== undefined) return xdr.ScVal.scvU64(xdr.Uint64.fromString(movement.toMuxedId));
  if (tx.memoType === 'none' || tx.memo === undefined) return undefined;
  if (tx.memoType === 'id') return xdr.ScVal.scvU64(xdr.Uint64.fromString(tx.memo));
  if (tx.memoType === 'text') return xdr.ScVal.scvString(Buffer.from(tx.memoBytes ?? '', 'base64'));
  return xdr.ScVal.scvBytes(Buffer.from(tx.memo, 'base64'));
}

function withMuxedId(stroops: bigint, muxedId: xdr.ScVal | undefined): string | undefined {
  if (!muxedId) return undefined;
  // an ScMap's keys are sorted: "amount" before "to_muxed_id"
  return xdr.ScVal.scvMap([
    new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol('amount'), val: nativeToScVal(stroops, { type: 'i128' }) }),
    new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol('to_muxed_id'), val: muxedId }),
  ]).toXDR('base64');
}

/** A payment record's id is its operation's TOID: transaction order in bits 12..31, operation order (1-based) below. */
function cursorOf(payment: StoredPayment, event: number): EventCursor {
  const toid = BigInt(payment.id);
  return { ledger: payment.ledger, tx: Number((toid >> 12n) & 0xfffffn), op: operationIndexOf(payment), event };
}

const operationIndexOf = (payment: StoredPayment): number => Number(BigInt(payment.id) & 0xfffn) - 1;

/** The lumens an account_merge moved: its result's sourceAccountBalance, as Horizon reads it too. */
function mergedBalance(tx: StoredTransaction, operationIndex: number): bigint {
  const result = xdr.TransactionResult.fromXDR(tx.resultXdr, 'base64').result();
  const inner = tx.feeBump ? result.innerResultPair().result().result() : result;
  const operation = inner.results()[operationIndex];
  return operation ? BigInt(operation.tr().accountMergeResult().sourceAccountBalance().toString()) : 0n;
}

const symbol = (name: string) => xdr.ScVal.scvSymbol(name).toXDR('base64');
const address = (accountId: string) => new Address(accountId).toScVal().toXDR('base64');
const i128 = (stroops: bigint) => nativeToScVal(stroops, { type: 'i128' }).toXDR('base64');

/** Stellar Asset Contract ids, by network: a hash per asset, so computed once. */
const contractIdCache = new Map<string, Map<string, string>>();

function contractIdsFor(networkPassphrase: string): (asset: AssetRef) => string {
  let cache = contractIdCache.get(networkPassphrase);
  if (!cache) contractIdCache.set(networkPassphrase, (cache = new Map()));
  const ids = cache;
  return (asset) => {
    const key = asset.type === 'native' ? 'native' : `${asset.code}:${asset.issuer}`;
    let id = ids.get(key);
    if (id === undefined) {
      id = (asset.type === 'native' ? Asset.native() : new Asset(asset.code, asset.issuer)).contractId(networkPassphrase);
      ids.set(key, id);
    }
    return id;
  };
}
