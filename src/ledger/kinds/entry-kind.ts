import type { Asset, Keypair, xdr } from '@stellar/stellar-sdk';
import type { LedgerApi } from '../../clients/ledger-api';
import type { Executor } from '../../db/client';
import { approvalWritten } from '../../db/repositories/approval.repository';
import type { EventSink } from '../../db/repositories/event.repository';
import type { ClaimStatement, EntryRow, NewEntry } from '../../db/repositories/journal.repository';
import type { EntryOutcome, KindCommand } from '../write-command';

// What one kind of ledger write is, complete in one file under src/ledger/kinds/: the command a use
// case hands the journal, the entry it commits and what it claims, the submitter and operations
// that carry it, which refusals end it, and what its confirmation or failure changes for the row
// that owns it. The journal, the submitter, the reconciler, the settlement and the audits ask the
// kind (through KindRegistry) and never switch on its name. Adding a kind: docs/architecture.md.

export type { KindCommand } from '../write-command';

/** One journal entry's operations, to be carried by the next envelope of this account. */
export interface LedgerJob {
  /** The committed journal entry these operations are. */
  entryId: string;
  /** Its entry's kind (kinds/registry.ts): what a refusal of its operations means. */
  kind: string;
  operations: xdr.Operation[];
  /** Keys besides the source account's that must sign (e.g. a new wallet for its change_trust). */
  signers?: Keypair[];
}

/** An account's one queue of jobs (AccountSubmitter): it answers each job's outcome. */
export interface JobSubmitter {
  submit(job: LedgerJob): Promise<EntryOutcome>;
}

/** The accounts a kind's entries go out from (ledger-accounts.ts JournalAccounts): the system keys, the token, their submitters. */
export interface KindAccounts {
  keys: { issuer: Keypair; distribution: Keypair };
  asset: Asset;
  /** The issuer's batches. */
  issuer: JobSubmitter;
  /** The distribution account's batches, spread over its channel accounts. */
  distribution: JobSubmitter;
  /** The distribution account as its own lane (the bootstrap's writes: channels, its trustline). */
  distributionDirect: JobSubmitter;
}

/** What a kind's code may use to build its entry and its job: the accounts, the network, the wallets' keys. */
export interface KindContext {
  ledger: KindAccounts;
  client: LedgerApi;
  /** A wallet's key pair, opened from its sealed secret only to sign: no use case holds a wallet's secret. */
  walletKey(publicKey: string): Promise<Keypair>;
  /** A wallet's own submitter (one queue per account, so its writes never race each other's sequence numbers). */
  walletSubmitter(wallet: Keypair): JobSubmitter;
}

/** A command as the entry it commits; `operations`, when the kind already worked them out, are reused by its first job. */
export interface Prepared {
  entry: NewEntry;
  operations?: xdr.Operation[];
}

/** An entry's operations and the submitter (its account's one queue) that signs and sends them. */
export interface EntryJob {
  submitter: JobSubmitter;
  job: LedgerJob;
}

/**
 * How the ledger audit counts a confirmed entry of the kind:
 * - `minted`: a token payment between accounts the service holds (matched one for one with the ledger's payments);
 * - `sent`: a token payment that may leave the service's accounts (what does is "sent outside");
 * - `issued`: new tokens, a payment from the issuer that adds to the supply;
 * - `burnt`: tokens the issuer takes back (no payment on the ledger: less supply, less in the wallet);
 * - `none`: moves no token (accounts, trustlines, flags).
 */
export type SupplyRole = 'minted' | 'sent' | 'issued' | 'burnt' | 'none';

/**
 * A row of another aggregate that an entry takes in the transaction that commits it (a payment
 * reference, a reversal): whoever takes it first writes the entry, every other caller writes nothing.
 */
export interface EntryClaim {
  /** What is claimed, for the audits ('payment', 'reversal'). */
  of: string;
  /** One conditional update in the committing transaction; false when another caller took it first. */
  take(tx: Executor, entry: NewEntry & { id: string }): Promise<boolean>;
  /**
   * The same claim as one update for a CTE: when nothing else commits with the entry (no
   * Idempotency-Key, no admin log), the claim and the entry's insert are one prepared statement,
   * not a transaction of four round trips (a burst of verified payments; issue 37).
   */
  readonly statement?: ClaimStatement;
}

/** A refusal of the entry's own operation (`code`), or of the whole transaction for a reason not about the envelope (`code` undefined). */
export type RefusalVerdict = 'final' | 'again';

export interface EntryKind<C extends KindCommand = KindCommand> {
  /** The entry kind, as stored in `ledger_entries.kind` (the schema's enum). */
  readonly name: C['kind'];
  /** Listed to users and admins as a transaction record. */
  readonly record: boolean;
  /**
   * The service finishes it by itself (a paid purchase, a signup's wallet, the bootstrap's
   * writes): when nothing can send it now it is left to the reconciler, never dropped with its
   * Idempotency-Key for the caller to ask again.
   */
  readonly mustFinish: boolean;
  readonly supply: SupplyRole;
  readonly claim?: EntryClaim;
  /** The entry the command commits; undefined when the network already holds what it asks (nothing to write). */
  prepare(command: C, context: KindContext): Promise<Prepared | undefined>;
  /**
   * Its submitter and operations, from the entry alone: the same for its first envelope and for
   * any later one the reconciler builds (`operations` only from prepare, for the first).
   */
  job(entry: EntryRow, context: KindContext, operations?: xdr.Operation[]): Promise<EntryJob>;
  /** Whether the network's refusal ends the entry (failed, with its code) or it rides again in a new envelope. */
  refusal(code: string | undefined): RefusalVerdict;
  /**
   * What the envelope's confirmation changes for the rows these entries stand for, in the settling
   * transaction; the events those changes tell users go to `events` (appended before it commits).
   */
  confirmed?(tx: Executor, entries: EntryRow[], hash: string, events: EventSink): Promise<void>;
  /** What a final refusal of these entries changes, in the settling transaction. */
  failed?(tx: Executor, entries: EntryRow[], events: EventSink): Promise<void>;
}

/** Result codes of a payment that trying again never mends: the destination cannot hold the token. */
export const NEVER_SUCCEEDS = new Set(['op_no_trust', 'op_line_full', 'op_no_destination', 'op_not_authorized', 'op_malformed', 'op_no_issuer']);

// The refusal rules the kinds share (`refusal`):

/** Any refusal is the answer: the caller asks again if it wants to. */
export const anyRefusalIsFinal = (): RefusalVerdict => 'final';

/** A refusal of its own operation is the answer; one of the whole transaction rides again (the service finishes it). */
export const operationRefusalIsFinal = (code: string | undefined): RefusalVerdict => (code === undefined ? 'again' : 'final');

/** Over only once done (the account already exists) or hopeless (NEVER_SUCCEEDS); anything else rides again. */
export const finalWhenDoneOrHopeless = (code: string | undefined): RefusalVerdict =>
  code !== undefined && (code === 'op_already_exists' || NEVER_SUCCEEDS.has(code)) ? 'final' : 'again';

// The claim the kinds of money creation share (`claim`):

/**
 * An admin mint or issue approved by a second admin (MINT_APPROVAL_THRESHOLD) takes its approval
 * in the committing transaction, so it is written once whatever retries and races; one with no
 * approval (below the threshold, or none set) claims nothing.
 */
export const approvalClaim: EntryClaim = {
  of: 'approval',
  take: async (tx, entry) => (entry.approvalId ? approvalWritten(tx, entry.approvalId, entry.id) : true),
};

/** A job of the entry: its operations through `submitter`, signed by `signers` besides the submitter's account. */
export function jobOf(submitter: JobSubmitter, entry: EntryRow, operations: xdr.Operation[], signers?: Keypair[]): EntryJob {
  return { submitter, job: { entryId: entry.id, kind: entry.kind, operations, ...(signers ? { signers } : {}) } };
}
