import { sql } from 'drizzle-orm';
import { sendPoint } from '../../src/ledger/send-point';
import { queryRows } from '../helpers/database-state';
import { eventually } from '../helpers/eventually';
import { adminToken, bearer } from '../helpers/factories';
import { fundedUser, ledgerBalance, userAwaitingActivation } from '../helpers/ledger-fixtures';
import { withSandboxes } from '../helpers/with-sandboxes';

/**
 * Fill the next ledger (issue 37): on a ledger that closes on a pace the service has learned, a
 * channel lane whose transaction the queue does not fill waits until shortly before the close, so
 * what is queued meanwhile rides in the same envelope. Two-second closes leave a wide margin
 * between the requests below and the lane's send point (a third of the interval before the close),
 * so a busy machine does not decide the test.
 */
const CLOSE_MS = 2000;

const { ledger, app } = withSandboxes({ ledger: { ledgerCloseMs: CLOSE_MS }, app: { scope: 'file' } });

/** Until a close has just passed: the next one is most of an interval away. */
async function justAfterAClose(): Promise<void> {
  const client = app.container.ledgerModule.client;
  for (;;) {
    const next = client.nextClose?.();
    if (next && next.at - Date.now() > CLOSE_MS * 0.8) return;
    await new Promise((resolve) => setTimeout(resolve, next ? Math.max(5, next.at - Date.now() + 20) : 50));
  }
}

describe('mints queued within a close period', () => {
  it('go out in one envelope when they arrive before the send point, not one envelope each', async () => {
    const admin = await adminToken(app);
    await app.http.post('/api/ledger/create-asset').set(bearer(admin)).send({ assetCode: 'WLT', amount: '1000' }).expect(200);
    const users = [await fundedUser(app, 0), await fundedUser(app, 0), await fundedUser(app, 0)];
    // Each waits for its close, so the RPC client's watch learns the ledger's pace.
    for (const user of users) await app.http.post('/api/payments/mint-tokens').set(bearer(admin)).send({ userId: user.userId, amount: 1 }).expect(200);
    expect(app.container.ledgerModule.client.nextClose?.()).toEqual({ at: expect.any(Number), intervalMs: expect.any(Number) });

    await justAfterAClose();
    // then() sends the request (supertest sends nothing until asked for its answer).
    const mint = (userId: string, amount: number) => app.http.post('/api/payments/mint-tokens').set(bearer(admin)).send({ userId, amount }).then((answer) => answer);
    const first = mint(users[0]!.userId, 10);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const answers = await Promise.all([first, mint(users[1]!.userId, 20), mint(users[2]!.userId, 30)]);

    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    // Sent at once, the first would have gone alone on a lane of its own.
    // Each names its transaction (a missing hash would make the three "equal" without proving anything).
    for (const a of answers) expect(a.body.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(answers.map((a) => a.body.hash)).size).toBe(1);
    expect(await Promise.all(users.map((u) => ledgerBalance(ledger.url, u.ledgerPublicKey)))).toEqual(['11.0000000', '21.0000000', '31.0000000']);
  });
});

describe('a transaction the queue fills', () => {
  it('goes out as soon as it is full, before the send point, and what is left waits for it', async () => {
    const client = app.container.ledgerModule.client;
    // Each activation waits for its close, so the watch learns the pace (already known when the test
    // above ran first); three closes seen are more than it needs.
    for (let i = 0; i < 3 && !client.nextClose?.(); i++) expect(await app.container.activation.activateUser(await userAwaitingActivation(app), { fresh: true })).toBe(true);
    expect(client.nextClose?.()).toEqual({ at: expect.any(Number), intervalMs: expect.any(Number) });
    // 19 activations: each carries its wallet's signature, and an envelope holds 20 (the
    // distribution account's and the channel's, then 18 wallets'): the 19th fills the first.
    const userIds = await Promise.all(Array.from({ length: 19 }, () => userAwaitingActivation(app)));

    await justAfterAClose();
    const waitingLaneSends = sendPoint(Date.now(), client.nextClose?.(), false);
    expect(waitingLaneSends).toEqual(expect.any(Number));
    const activated = Promise.all(userIds.map((id) => app.container.activation.activateUser(id, { fresh: true })));
    // The envelope is stored just before it is sent (nothing is sent that the journal does not hold).
    const carried = () =>
      queryRows<{ n: number }>(
        app.container.database,
        sql`select count(*)::int as n from ledger_entries where kind = 'activation' and user_id in ${userIds} and envelope_id is not null group by envelope_id order by n desc`,
      );
    const full = await eventually(async () => (Number((await carried())[0]?.n) === 18 ? Date.now() : undefined), 'a full envelope of 18 activations', { intervalMs: 10 });
    // Seen before the point a lane whose transaction is not full would send at: it did not wait.
    expect(full).toBeLessThan(waitingLaneSends!);

    expect(await activated).toEqual(userIds.map(() => true));
    expect((await carried()).map((c) => Number(c.n))).toEqual([18, 1]);
  });
});
