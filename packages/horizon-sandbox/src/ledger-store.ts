import { appendFile, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ClosedLedger } from './ledger-history';
import { BASE_FEE, TRUSTLINE_AUTHORIZED_FLAG, assetKey } from './ledger-rules';
import {
  DEFAULT_MAX_TX_SET_SIZE,
  LedgerState,
  type AccountEntry,
  type LedgerHeader,
  type Trustline,
} from './ledger-state';

/**
 * Keeps the ledger on disk in two files: a snapshot of the accounts (rewritten atomically, write to
 * a temporary file then rename) and an append-only journal of closed ledgers with their
 * transactions. History only grows, so it is appended rather than rewritten. Writes are coalesced:
 * a burst of ledgers costs one append and one snapshot.
 */

const STATE_FILE = 'ledger-state.json';
const HISTORY_FILE = 'ledger-history.ndjson';
const FORMAT = 1;
const COALESCE_MS = 100;

type Stringified<T, K extends keyof T> = Omit<T, K> & { [P in K]: string };
/** Flags are optional: state files written before trustline flags have none (see deserializeAccount). */
type SerializedTrustline = Stringified<Omit<Trustline, 'flags'>, 'balance' | 'limit'> & Partial<Pick<Trustline, 'flags'>>;
/** The sponsorship counts are optional: state files written before sponsorship have none (all 0). */
type SponsorshipCounts = 'numSponsoring' | 'numSponsored';
type SerializedAccount = Stringified<Omit<AccountEntry, 'trustlines' | SponsorshipCounts>, 'balance' | 'sequence'> &
  Partial<Pick<AccountEntry, SponsorshipCounts>> & { trustlines: SerializedTrustline[] };

interface StateFile {
  format: number;
  networkPassphrase: string;
  latest: LedgerHeader;
  accounts: SerializedAccount[];
}

export class LedgerStore {
  private pendingHistory: string[] = [];
  private timer: NodeJS.Timeout | undefined;
  private dirty = false;
  private writing: Promise<void> = Promise.resolve();

  private constructor(
    private readonly directory: string,
    private state: LedgerState | undefined,
  ) {}

  /** Opens the directory and loads the state it holds, if any. */
  static async open(directory: string, networkPassphrase: string): Promise<{ store: LedgerStore; loaded?: LedgerState }> {
    await mkdir(directory, { recursive: true });
    const loaded = await loadState(directory, networkPassphrase);
    return { store: new LedgerStore(directory, loaded), loaded };
  }

  /** Which state to snapshot; set once the sandbox knows whether it loaded or created one. */
  attach(state: LedgerState): void {
    this.state = state;
  }

  recordClosedLedger(closed: ClosedLedger): void {
    this.pendingHistory.push(`${JSON.stringify(closed)}\n`);
    this.dirty = true;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush().catch((error: unknown) => {
        process.emitWarning(`sandbox ledger could not save its state: ${String(error)}`);
      });
    }, COALESCE_MS);
    // an exiting process flushes through close(); the timer must not hold it open
    this.timer.unref();
  }

  /** Writes whatever is pending. Journal first, snapshot second: on load, journal lines past the snapshot are dropped. */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.writing = this.writing.then(() => this.writeOnce());
    return this.writing;
  }

  private async writeOnce(): Promise<void> {
    if (!this.dirty || !this.state) return;
    this.dirty = false;
    // both captured in the same tick, so the journal and the snapshot describe the same ledger
    const lines = this.pendingHistory.splice(0);
    const snapshot = JSON.stringify(serializeState(this.state));
    try {
      if (lines.length > 0) await appendFile(path.join(this.directory, HISTORY_FILE), lines.join(''));
      await writeAtomically(path.join(this.directory, STATE_FILE), snapshot);
    } catch (error) {
      // the next flush writes a fresh snapshot; journal lines it lacks are dropped on load
      this.dirty = true;
      throw error;
    }
  }
}

async function writeAtomically(file: string, contents: string): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, contents);
  await rename(temporary, file);
}

async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function loadState(directory: string, networkPassphrase: string): Promise<LedgerState | undefined> {
  const text = await readIfExists(path.join(directory, STATE_FILE));
  if (text === undefined) {
    // a journal without a snapshot belongs to a ledger that never finished its first save
    await rm(path.join(directory, HISTORY_FILE), { force: true });
    return undefined;
  }
  const file = JSON.parse(text) as StateFile;
  if (file.format !== FORMAT) throw new Error(`${directory}: unknown sandbox ledger format ${file.format}`);
  if (file.networkPassphrase !== networkPassphrase) {
    // transactions in it are signed for another network; mixing them up would be silently wrong
    throw new Error(`${directory} holds a ledger for "${file.networkPassphrase}", not "${networkPassphrase}"`);
  }
  const state = new LedgerState(networkPassphrase, upgradeHeader(file.latest));
  for (const account of file.accounts) state.accounts.set(account.id, deserializeAccount(account));
  await loadHistory(directory, state);
  return state;
}

async function loadHistory(directory: string, state: LedgerState): Promise<void> {
  const file = path.join(directory, HISTORY_FILE);
  const text = (await readIfExists(file)) ?? '';
  const kept: string[] = [];
  let droppedSomething = false;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let closed: ClosedLedger;
    try {
      closed = JSON.parse(line) as ClosedLedger;
    } catch {
      droppedSomething = true; // a line cut short by a crash
      continue;
    }
    if (closed.header.sequence > state.latest.sequence) {
      droppedSomething = true; // journaled, but the snapshot never saw it: it did not happen
      continue;
    }
    state.history.addLedger(upgradeHeader(closed.header), closed.transactions, closed.payments);
    kept.push(`${line}\n`);
  }
  if (droppedSomething) await writeAtomically(file, kept.join(''));
}

/**
 * Headers written before the base fee and the operation limit were recorded carry neither: they
 * closed at the network's base fee, under the limit the ledger resource then showed.
 */
function upgradeHeader(header: Omit<LedgerHeader, 'baseFee' | 'maxTxSetSize'> & Partial<LedgerHeader>): LedgerHeader {
  return { ...header, baseFee: header.baseFee ?? BASE_FEE.toString(), maxTxSetSize: header.maxTxSetSize ?? DEFAULT_MAX_TX_SET_SIZE };
}

function serializeState(state: LedgerState): StateFile {
  const accounts: SerializedAccount[] = [];
  for (const account of state.accounts.values()) {
    const { trustlines, balance, sequence, ...rest } = account;
    accounts.push({
      ...rest,
      balance: balance.toString(),
      sequence: sequence.toString(),
      trustlines: [...trustlines.values()].map((line) => ({
        ...line,
        balance: line.balance.toString(),
        limit: line.limit.toString(),
      })),
    });
  }
  return { format: FORMAT, networkPassphrase: state.networkPassphrase, latest: state.latest, accounts };
}

function deserializeAccount(account: SerializedAccount): AccountEntry {
  const trustlines = new Map<string, Trustline>();
  for (const line of account.trustlines) {
    trustlines.set(assetKey(line.code, line.issuer), {
      ...line,
      balance: BigInt(line.balance),
      limit: BigInt(line.limit),
      // before trustline flags every line was shown, and treated, as authorized and not clawback-enabled
      flags: line.flags ?? TRUSTLINE_AUTHORIZED_FLAG,
    });
  }
  return {
    ...account,
    balance: BigInt(account.balance),
    sequence: BigInt(account.sequence),
    trustlines,
    numSponsoring: account.numSponsoring ?? 0,
    numSponsored: account.numSponsored ?? 0,
  };
}
