import { Keypair } from '@stellar/stellar-sdk';
import { SANDBOX_NETWORK_PASSPHRASE } from '@wallet/horizon-sandbox';
import { HorizonClient } from '../../src/clients/horizon.client';
import type { HistoryPosition, HistoryRead, LedgerApi } from '../../src/clients/ledger-api';
import { RpcClient } from '../../src/clients/rpc.client';
import { LEDGER_APIS, startLedgerSandbox, type RunningLedger } from '../helpers/sandboxes';

/**
 * Each adapter's readHistory at the edge of the API's history window, against the sandbox ledger
 * (instant ledgers, one per submission, none closed while idle: the window moves only when this
 * test submits). A position whose ledger was wholly read may point into a ledger the window has just
 * left: nothing is missing then, and reading goes on from the next ledger. Only a next ledger the
 * API no longer holds is beyond retention.
 */

const WINDOW = 5;

describe.each(LEDGER_APIS)('readHistory through %s at the edge of the history window', (api) => {
  let ledger: RunningLedger;
  let client: LedgerApi;

  beforeAll(async () => {
    ledger = await startLedgerSandbox({ api, ledgerCloseMs: 0, idleCloseMs: 600_000, retentionLedgers: WINDOW, horizonRetentionLedgers: WINDOW });
    const common = { networkPassphrase: SANDBOX_NETWORK_PASSPHRASE, readTimeoutMs: 30_000 };
    client = api === 'rpc' ? new RpcClient({ rpcUrl: ledger.rpcUrl, ...common }) : new HorizonClient({ horizonUrl: ledger.url, retentionLedgers: WINDOW, ...common });
  });
  afterAll(() => ledger.stop());

  /** One account funded by friendbot: one transaction, one ledger. */
  async function fund(): Promise<string> {
    const key = Keypair.random().publicKey();
    const res = await fetch(`${ledger.url}/friendbot?addr=${key}`);
    if (!res.ok) throw new Error(`friendbot answered ${res.status}`);
    return key;
  }

  /** Reads pages from `from` until one reads through the API's newest ledger; the funded accounts seen on the way. */
  async function readToTip(from: HistoryPosition): Promise<{ position: HistoryPosition; funded: string[]; reads: HistoryRead[] }> {
    const funded: string[] = [];
    const reads: HistoryRead[] = [];
    let position = from;
    for (;;) {
      const read = await client.readHistory(position, 200);
      reads.push(read);
      if (read.kind !== 'page') return { position, funded, reads };
      funded.push(...read.page.transactions.flatMap((t) => t.movements.filter((m) => m.type === 'create_account').map((m) => m.to)));
      position = { cursor: read.page.cursor, ledger: read.page.throughLedger };
      if (read.page.throughLedger >= read.page.latestLedger) return { position, funded, reads };
    }
  }

  it('reads on from a wholly read ledger that has just left the window, and reports a next ledger that has left it', async () => {
    for (let i = 0; i < WINDOW; i++) await fund();
    const start = await client.health();
    const first = await readToTip({ cursor: undefined, ledger: start.oldestLedger - 1 });
    expect(first.reads.every((r) => r.kind === 'page')).toBe(true);
    const read = first.position;
    expect(read.ledger).toBe(start.latestLedger);

    // WINDOW ledgers more: the last ledger read leaves the window, the one after it is the oldest held.
    const later: string[] = [];
    for (let i = 0; i < WINDOW; i++) later.push(await fund());
    expect((await client.health()).oldestLedger).toBe(read.ledger + 1);
    const next = await readToTip(read);
    expect(next.reads.every((r) => r.kind === 'page')).toBe(true);
    expect(next.funded).toEqual(later);

    // WINDOW + 1 more, unread: the next ledger has left the window.
    for (let i = 0; i <= WINDOW; i++) await fund();
    const held = await client.health();
    expect(held.oldestLedger).toBe(next.position.ledger + 2);
    expect(await client.readHistory(next.position, 200)).toEqual({ kind: 'beyond_retention', oldestLedger: held.oldestLedger, latestLedger: held.latestLedger });
  });
});
