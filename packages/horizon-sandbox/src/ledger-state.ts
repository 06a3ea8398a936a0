import { createHash } from 'node:crypto';
import { Keypair } from '@stellar/stellar-sdk';
import { STROOPS_PER_UNIT } from './amounts';
import { LedgerHistory } from './ledger-history';
import { BASE_FEE } from './ledger-rules';
import { OperationHistory } from './operation-history';

export interface Trustline {
  code: string;
  issuer: string;
  balance: bigint;
  limit: bigint;
  /** TrustLineFlags: authorized, authorized to maintain liabilities, clawback enabled (ledger-rules.ts). */
  flags: number;
  lastModifiedLedger: number;
  /** The account paying this line's base reserve instead of its owner (CAP-33), if any. */
  sponsor?: string;
}

export interface AccountSigner {
  key: string;
  weight: number;
  /** The account paying this signer's base reserve instead of the account it signs for, if any. */
  sponsor?: string;
}

export interface Thresholds {
  low: number;
  med: number;
  high: number;
}

export interface AccountEntry {
  id: string;
  balance: bigint;
  sequence: bigint;
  /** Ledger and close time of the last sequence change, for the minSeqAge / minSeqLedgerGap preconditions. */
  sequenceLedger: number;
  sequenceTime: number;
  subentryCount: number;
  masterWeight: number;
  thresholds: Thresholds;
  flags: number;
  homeDomain: string;
  inflationDest?: string;
  signers: AccountSigner[];
  trustlines: Map<string, Trustline>;
  /** Base reserves this account pays for entries of other accounts (CAP-33). */
  numSponsoring: number;
  /** Base reserves of this account's own entries that other accounts pay. */
  numSponsored: number;
  /** The account paying the two base reserves of this account entry itself, if any. */
  sponsor?: string;
  lastModifiedLedger: number;
  lastModifiedTime: number;
}

export interface LedgerHeader {
  sequence: number;
  hash: string;
  previousHash: string;
  /** Unix seconds. */
  closedAt: number;
  successfulTransactionCount: number;
  failedTransactionCount: number;
  operationCount: number;
  txSetOperationCount: number;
  /** Stroops collected in fees since genesis, as a decimal string (JSON has no bigint). */
  feePool: string;
  /**
   * The network's base fee in stroops, as a decimal string. As in stellar-core's header it stays the
   * minimum bid when a ledger is full: the surge price is the transaction set's, seen only in what
   * each transaction was charged.
   */
  baseFee: string;
  /** Operations a ledger may hold (core's maxTxSetSize); 0 when the sandbox runs without a limit. */
  maxTxSetSize: number;
}

/** The public network's classic limit, and what the sandbox's ledgers said before the limit was configurable. */
export const DEFAULT_MAX_TX_SET_SIZE = 1000;

/** Root holds every lumen at genesis, as on a fresh Stellar network; friendbot pays from it. */
export const ROOT_BALANCE = 100_000_000_000n * STROOPS_PER_UNIT;

/**
 * What each account changed by the ledger being closed looked like before it (undefined: created in
 * it; an account merged away in it keeps its last image here). References, not copies: a committed account is replaced on change, never mutated in place.
 */
export type PriorImages = Map<string, AccountEntry | undefined>;

/** Accounts, the last closed ledger and the history: everything the sandbox knows. */
export class LedgerState {
  readonly accounts = new Map<string, AccountEntry>();
  readonly history = new LedgerHistory();
  /** Horizon's operations, derived from the history when read. */
  readonly operations: OperationHistory;
  /** Filled while a ledger closes, so that a lagging read side can still show the accounts as they were. */
  priorImages: PriorImages | undefined;

  constructor(
    readonly networkPassphrase: string,
    public latest: LedgerHeader,
  ) {
    this.operations = new OperationHistory(this.history, networkPassphrase);
  }

  get rootKeypair(): Keypair {
    return Keypair.master(this.networkPassphrase);
  }
}

export function newAccount(id: string, balance: bigint, ledger: number, closeTime: number): AccountEntry {
  return {
    id,
    balance,
    // Protocol >= 10: a new account's sequence starts at its creation ledger shifted into the high word,
    // so a transaction signed for a deleted-and-recreated account can never be replayed.
    sequence: BigInt(ledger) << 32n,
    sequenceLedger: ledger,
    sequenceTime: closeTime,
    subentryCount: 0,
    masterWeight: 1,
    thresholds: { low: 0, med: 0, high: 0 },
    flags: 0,
    homeDomain: '',
    signers: [],
    trustlines: new Map(),
    numSponsoring: 0,
    numSponsored: 0,
    lastModifiedLedger: ledger,
    lastModifiedTime: closeTime,
  };
}

export function cloneAccount(account: AccountEntry): AccountEntry {
  const trustlines = new Map<string, Trustline>();
  for (const [key, line] of account.trustlines) trustlines.set(key, { ...line });
  return {
    ...account,
    thresholds: { ...account.thresholds },
    signers: account.signers.map((signer) => ({ ...signer })),
    trustlines,
  };
}

export function ledgerHash(previousHash: string, sequence: number, closedAt: number, txHashes: string[]): string {
  return createHash('sha256')
    .update(`${previousHash}:${sequence}:${closedAt}:${txHashes.join(',')}`)
    .digest('hex');
}

export function createGenesisState(
  networkPassphrase: string,
  nowSeconds: number,
  maxTxSetSize = DEFAULT_MAX_TX_SET_SIZE,
): LedgerState {
  const genesis: LedgerHeader = {
    sequence: 1,
    hash: ledgerHash('0'.repeat(64), 1, nowSeconds, []),
    previousHash: '0'.repeat(64),
    closedAt: nowSeconds,
    successfulTransactionCount: 0,
    failedTransactionCount: 0,
    operationCount: 0,
    txSetOperationCount: 0,
    feePool: '0',
    baseFee: BASE_FEE.toString(),
    maxTxSetSize,
  };
  const state = new LedgerState(networkPassphrase, genesis);
  const root = newAccount(state.rootKeypair.publicKey(), ROOT_BALANCE, 1, nowSeconds);
  root.sequence = 0n;
  state.accounts.set(root.id, root);
  state.history.addLedger(genesis, [], []);
  return state;
}
