import { Account, FeeBumpTransaction, Operation, type Transaction } from '@stellar/stellar-sdk';
import { until } from './fault-helpers';
import { buildFrom, type SandboxHarness } from './sandbox-harness';

/**
 * Clocks a test moves itself, and probes of what waits for the next ledger, so that what a test
 * asserts about time (a ledger held back for lagMs, submissions sharing a ledger) is an order it
 * sets up, not a race against a busy machine. The sandbox runs in the test's process and reads the
 * clocks Jest can fake; everything else (timeouts, HTTP, promises) keeps running on the real ones.
 */

type Fakeable = NonNullable<Extract<Parameters<typeof jest.useFakeTimers>[0], { doNotFake?: unknown }>['doNotFake']>[number];

const EVERYTHING: Fakeable[] = [
  'Date',
  'hrtime',
  'nextTick',
  'performance',
  'queueMicrotask',
  'requestAnimationFrame',
  'cancelAnimationFrame',
  'requestIdleCallback',
  'cancelIdleCallback',
  'setImmediate',
  'clearImmediate',
  'setInterval',
  'clearInterval',
  'setTimeout',
  'clearTimeout',
];

/** Fakes only `faked` for the enclosing describe, from before its sandbox starts (call it first). */
function fakeOnly(faked: Fakeable[]): void {
  beforeAll(() => {
    jest.useFakeTimers({ doNotFake: EVERYTHING.filter((api) => !faked.includes(api)), now: Date.now() });
  });
  afterAll(() => {
    jest.useRealTimers();
  });
}

/**
 * The wall clock (Date) stands still for the enclosing describe: the sandbox's close times and its
 * ingestion lag see no time pass until the test moves it with passWallClock(). A ledger held back
 * for lagMs is then hidden however long a test's reads take, and shows exactly when it should.
 */
export function stoppedWallClock(): void {
  fakeOnly(['Date']);
}

/** Moves the stopped wall clock `ms` forward. */
export function passWallClock(ms: number): void {
  jest.setSystemTime(Date.now() + ms);
}

/**
 * Ledgers close when the test says (closeLedger), not when the sandbox's interval fires: the
 * interval timer is faked for the enclosing describe, so a window between two closes lasts as long
 * as the test needs to put what it wants in it. Start the sandbox with ledgerCloseMs `closeMs`.
 */
export function manualLedgerCloses(closeMs: number): { closeLedger(): void; closing<T>(pending: Promise<T>): Promise<T> } {
  fakeOnly(['setInterval', 'clearInterval']);
  const closeLedger = () => jest.advanceTimersByTime(closeMs);
  return {
    /** One tick of the ledger timer: whatever waits in the queue goes into one ledger (if anything waits). */
    closeLedger,
    /** Closes ledgers, one after another, until `pending` (a submission waiting for its ledger) settles. */
    async closing<T>(pending: Promise<T>): Promise<T> {
      let settled = false;
      const settles = pending.then(
        () => (settled = true),
        () => (settled = true),
      );
      while (!settled) {
        closeLedger();
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await settles;
      return pending;
    },
  };
}

/**
 * Waits until a transaction of `tx`'s source account waits in core's queue, by asking RPC's
 * sendTransaction about the account's next sequence number, which changes nothing: while one of the
 * account's transactions waits the answer is TRY_AGAIN_LATER (one per account in the queue); before,
 * that sequence number is not the account's next, and it is refused.
 */
export async function accountWaitsInQueue(harness: Pick<SandboxHarness, 'rpc' | 'passphrase'>, tx: Transaction | FeeBumpTransaction): Promise<void> {
  const inner = tx instanceof FeeBumpTransaction ? tx.innerTransaction : tx;
  await until(async () => ((await accountWaits(harness, tx)) ? true : undefined), `a transaction of ${inner.source} waiting in the queue`);
}

/** Whether a transaction of `tx`'s source account waits in core's queue now (asked as accountWaitsInQueue asks). */
export async function accountWaits(harness: Pick<SandboxHarness, 'rpc' | 'passphrase'>, tx: Transaction | FeeBumpTransaction): Promise<boolean> {
  const inner = tx instanceof FeeBumpTransaction ? tx.innerTransaction : tx;
  const next = buildFrom(new Account(inner.source, inner.sequence), [Operation.setOptions({})], harness.passphrase, {}, []);
  return (await harness.rpc.sendTransaction(next)).status === 'TRY_AGAIN_LATER';
}

/**
 * Waits until `tx` itself waits in the queue, by sending it again through RPC: DUPLICATE once it
 * waits. That changes nothing only while an earlier transaction of its account waits (until then it
 * is told TRY_AGAIN_LATER instead of being taken): for the second of a chain.
 */
export async function chainedWaitsInQueue(harness: SandboxHarness, tx: Transaction): Promise<void> {
  await until(async () => {
    const { status } = await harness.rpc.sendTransaction(tx);
    if (status !== 'DUPLICATE' && status !== 'TRY_AGAIN_LATER') throw new Error(`the probe was answered ${status}: no earlier transaction of the account waits`);
    return status === 'DUPLICATE' ? true : undefined;
  }, 'the chained transaction waiting in the queue');
}

/**
 * Waits until the sandbox has been handed `count` requests in all (SandboxHarness.requestsIn), then
 * lets their handlers run: the sandbox takes a submission into core's queue without waiting on
 * anything, so they are in it then. For what no probe can see, such as a second submission of an
 * envelope already waiting, or friendbot's fundings.
 */
export async function handedIn(harness: SandboxHarness, count: number): Promise<void> {
  await until(async () => (harness.requestsIn() >= count ? true : undefined), `${count} requests handed to the sandbox`);
  for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
}
