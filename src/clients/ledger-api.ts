import type { Asset, FeeBumpTransaction, Transaction } from '@stellar/stellar-sdk';
import type { MovedAsset, MovementOperation } from '../domain/ledger-movement';
import type { NextClose } from './ledger-close-watch';
import type { LedgerRejectedError, LedgerUnavailableError } from './ledger-errors';

// The service's one port to the Stellar network. Two adapters implement it: Stellar RPC
// (rpc.client.ts, the API Stellar recommends) and Horizon (horizon.client.ts). A submission
// answers what happened as a value (SubmitAnswer); a read that fails leaves an adapter as
// LedgerUnavailableError (retry later).

export interface LedgerBalance {
  assetType: string;
  assetCode: string | undefined;
  assetIssuer: string | undefined;
  /** 7-decimal string. */
  balance: string;
  limit: string | undefined;
}

export interface LedgerAccount {
  id: string;
  sequence: string;
  /** XLM first; then the trustlines the adapter read (RPC: only the asset asked for). */
  balances: LedgerBalance[];
  /** Reserves: trustlines and signers, reserves this account pays for others, reserves others pay for it. */
  subentryCount: number;
  numSponsoring: number;
  numSponsored: number;
  /** The account's own flags: an issuer needs both to take its token back (CAP-35 clawback). */
  flags: { authRevocable: boolean; authClawbackEnabled: boolean };
}

/** Recent fees per operation in stroops, as bigints. */
export interface FeeStats {
  lastLedger: number;
  lastLedgerBaseFee: bigint;
  /** What transactions of recent ledgers were charged per operation, by percentile (p10..p99). */
  feeCharged: Record<string, bigint>;
}

export interface LedgerPayment {
  /** The operation's id. */
  id: string;
  hash: string;
  from: string;
  to: string;
  /** 7-decimal string. */
  amount: string;
}

export interface FoundTransaction {
  /** The hash of the envelope that applied (a fee bump's own hash when it was one). */
  hash: string;
  successful: boolean;
  ledger: number;
  feeCharged: bigint;
}

/**
 * What one answer of the ledger API says of a hash. `absent` carries the evidence of that same
 * answer: the responding instance has ingested every ledger from `oldestLedger` to `latestLedger`
 * and the hash is in none of them. Evidence from two answers is never combined (instances behind
 * one URL stand at different ledgers).
 */
export type TransactionLookup =
  | { kind: 'found'; transaction: FoundTransaction }
  | { kind: 'absent'; latestLedger: number; oldestLedger: number };

/** What became of one submission, as far as its answer shows. */
export type SubmitAnswer =
  /**
   * In a ledger and successful. `hash`: the envelope that applied (a fee bump's own hash);
   * `feeCharged`: the stroops the network charged (what the fee source paid).
   */
  | { kind: 'applied'; hash: string; ledger: number; feeCharged: bigint }
  /**
   * Refused with Stellar's result codes: no operation applied (one refused tx_failed was in a
   * ledger, which took its fee and sequence number).
   */
  | { kind: 'refused'; error: LedgerRejectedError }
  /** The bytes never left this process (no connection was ever opened): nothing can have happened. */
  | { kind: 'not_delivered'; error: LedgerUnavailableError }
  /**
   * They may have left and no answer says what became of them (a timeout, a 5xx, a reset, core
   * not taking it now, an unreadable answer): look the hash up, resubmit only these same bytes.
   */
  | { kind: 'unclear'; reason: string };

export interface LedgerTip {
  sequence: number;
}

export interface LedgerHealth {
  latestLedger: number;
  oldestLedger: number;
}

/** One operation of a successful transaction that moved an asset from one account to another. */
export interface LedgerMovement {
  /** Its index among the transaction's operations, from 0. */
  operationIndex: number;
  type: MovementOperation;
  /** Accounts as G... keys (a muxed address is its base account). */
  from: string;
  to: string;
  /** What reached `to`. */
  asset: MovedAsset;
  stroops: bigint;
  /** What left `from`: the same as what arrived, but for a path payment across assets. */
  sent: { asset: MovedAsset; stroops: bigint };
}

/** A successful transaction of the history, with the movements the page holds of it. */
export interface HistoryTransaction {
  /** The hash as it applied (a fee bump's own hash when it was one). */
  hash: string;
  /** The signed transaction's hash (a fee bump's inner one): what the journal stores. */
  innerHash: string;
  ledger: number;
  closedAt: Date;
  feeCharged: bigint;
  movements: LedgerMovement[];
}

/**
 * Where a reader of the history stands: `cursor` is the API's own paging position (a TOID, as both
 * RPC's getTransactions and Horizon's paging tokens are), `ledger` the last ledger wholly read.
 * Without a cursor, reading starts at the ledger after `ledger`.
 */
export interface HistoryPosition {
  cursor: string | undefined;
  ledger: number;
}

/**
 * One answer of the history, in ledger order. Everything it holds comes from one instance of the
 * API: `throughLedger` is a ledger that answer wholly contained (never past its own latest), and
 * `cursor` never stands before the position asked from.
 */
export interface HistoryPage {
  transactions: HistoryTransaction[];
  cursor: string | undefined;
  throughLedger: number;
  /** The answering instance's newest ledger: how far behind the reader is. */
  latestLedger: number;
}

export type HistoryRead =
  | { kind: 'page'; page: HistoryPage }
  /** The API no longer holds the ledger the position needs: its history starts at `oldestLedger`. */
  | { kind: 'beyond_retention'; oldestLedger: number; latestLedger: number };

export interface LedgerApi {
  /** 'rpc' or 'horizon': for logs, metrics and the audit's notes. */
  readonly kind: 'rpc' | 'horizon';
  readonly networkPassphrase: string;
  /**
   * Submits a signed envelope once and waits for its outcome up to the submit deadline. Every
   * answer is a value, the network's failures included; it throws only for a bug.
   */
  submit(tx: Transaction | FeeBumpTransaction): Promise<SubmitAnswer>;
  /** One lookup of a hash, with the evidence of that one answer (see TransactionLookup). */
  lookupTransaction(hash: string): Promise<TransactionLookup>;
  /** The account, or undefined when it does not exist; with `asset`, its trustline for it too. */
  loadAccount(publicKey: string, asset?: Asset): Promise<LedgerAccount | undefined>;
  /** loadAccount for several accounts, in the order asked (RPC reads them in one call). */
  loadAccounts(publicKeys: readonly string[], asset?: Asset): Promise<(LedgerAccount | undefined)[]>;
  feeStats(): Promise<FeeStats>;
  /** The newest closed ledger, at most one close old: what an envelope's ledger bounds start from. */
  latestLedger(): Promise<LedgerTip>;
  /** The ledgers the API holds history for. Throws LedgerUnavailableError when it is unhealthy. */
  health(): Promise<LedgerHealth>;
  /**
   * Every successful payment of `asset` to or from an account, oldest first. Horizon only: RPC
   * keeps no such index (its CAP-67 events depend on a Core setting providers may not turn on).
   */
  tokenPaymentsOf?(publicKey: string, asset: Asset): Promise<LedgerPayment[]>;
  /**
   * The next page of the history after `from`, at most `limit` transactions (RPC) or operations
   * (Horizon): every successful transaction's movements, failed ones left out. Throws
   * LedgerUnavailableError when the API does not answer readably.
   */
  readHistory(from: HistoryPosition, limit: number): Promise<HistoryRead>;
  /**
   * When the next ledger close is due, if the client is watching the ledger's pace (RPC, while
   * submissions wait for closes); undefined otherwise, and always on instant ledgers. Only what a
   * submitter does before sending depends on it (account-submitter.ts), never an outcome.
   */
  nextClose?(): NextClose | undefined;
}

/** The balance line of an asset (XLM when `asset` is native or undefined), or undefined when the account has none. */
export function balanceOf(account: LedgerAccount, asset: Asset | undefined): LedgerBalance | undefined {
  return account.balances.find((b) =>
    !asset || asset.isNative() ? b.assetType === 'native' : b.assetCode === asset.getCode() && b.assetIssuer === asset.getIssuer(),
  );
}
