import { eventually } from '../helpers/eventually';
import { createUser } from '../helpers/factories';
import { outsider, payTokens } from '../helpers/outside-world';
import { fundedUser } from '../helpers/ledger-fixtures';
import { bearer } from '../helpers/factories';
import { LEDGER_APIS } from '../helpers/sandboxes';
import { withSandboxes } from '../helpers/with-sandboxes';

/**
 * The ledger API keeps a finite history (RPC's retention window; a Horizon's history, pruned). A
 * service down longer than that cannot read what it missed: the stretch is recorded as a gap,
 * reported by the audit and /metrics until an operator resolves it, and following goes on from the
 * oldest ledger held. Never skipped silently. Here the window is 30 ledgers of 100 ms.
 */

const WINDOW_LEDGERS = 30;

describe.each(LEDGER_APIS)(`through %s, with a history window of ${WINDOW_LEDGERS} ledgers`, (api) => {
  const { ledger, app } = withSandboxes({
    ledger: { api, ledgerCloseMs: 100, idleCloseMs: 100, retentionLedgers: WINDOW_LEDGERS, horizonRetentionLedgers: WINDOW_LEDGERS },
    app: { env: { LEDGER_HISTORY_RETENTION_LEDGERS: String(WINDOW_LEDGERS) } },
  });

  it('records a stretch the API no longer holds as a gap, reports it until resolved, and follows on', async () => {
    const alice = await fundedUser(app, 10);
    const bob = await createUser(app);
    const outside = await outsider(app, ledger.url);
    await app.http.post('/api/ledger/transfer').set(bearer(alice.token)).send({ receiverPublicKey: outside.publicKey(), amount: 5 }).expect(200);
    const { follower, movements, client } = app.container.ledgerModule;
    await follower.run();
    const stoppedAt = (await movements.position())!.ledger;

    // The service is down while the ledger moves on past its window.
    await eventually(async () => ((await client.health()).oldestLedger > stoppedAt + 1 ? true : undefined), 'the ledgers after the position to leave the window', { intervalMs: 200 });
    await follower.run();
    const gaps = await movements.openGaps();
    expect(gaps).toHaveLength(1);
    const gap = gaps[0]!;
    expect(gap.firstLedger).toBe(stoppedAt + 1);
    expect(gap.lastLedger).toBeGreaterThanOrEqual(stoppedAt + 1);
    // Following went on from the first ledger the API holds.
    expect((await movements.position())!.ledger).toBeGreaterThanOrEqual(gap.lastLedger);

    expect((await app.http.get('/metrics').expect(200)).text).toMatch(/^ledger_follow_gaps 1$/m);
    // The audit reports exactly the gap.
    expect((await app.container.audit()).discrepancies).toEqual([expect.stringMatching(new RegExp(`^ledger history gap ${gap.id}: ledgers ${gap.firstLedger}-${gap.lastLedger} `))]);

    // A movement after the gap is recorded as ever.
    const hash = await payTokens(app, ledger.url, outside, bob.ledgerPublicKey, '2');
    await eventually(async () => {
      await follower.run();
      return (await movements.all()).some((m) => m.ledgerTransactionId === hash) ? true : undefined;
    }, 'the payment after the gap to be recorded');

    // An operator resolves the gap: it no longer counts, and the audit closes.
    expect(await movements.resolveGap(gap.id, 'reconciled against a full-history Horizon: no movement of ours')).toBe(true);
    expect(await movements.resolveGap(gap.id, 'again')).toBe(false);
    expect((await app.http.get('/metrics').expect(200)).text).toMatch(/^ledger_follow_gaps 0$/m);
    expect((await app.container.audit()).discrepancies).toEqual([]);
  });
});
