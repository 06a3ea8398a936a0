import { sql } from 'drizzle-orm';
import { rowsOf } from '../../src/db/repositories/rows';
import { bearer } from '../helpers/factories';
import { fundedUser, ledgerBalance } from '../helpers/ledger-fixtures';
import { withSandboxes } from '../helpers/with-sandboxes';

// One wallet's submitter kept at a time: every transfer from another wallet lets the idle one go,
// and the next transfer from it builds a new submitter that reads its account's sequence again.
const { ledger, app } = withSandboxes({ app: { scope: 'file', env: { LEDGER_WALLET_SUBMITTERS: '1' } } });

describe('a process keeping fewer wallet submitters than wallets sending', () => {
  it('moves every token exactly once, one wallet after another and all at once', async () => {
    const users = await Promise.all([fundedUser(app, 10), fundedUser(app, 10), fundedUser(app, 10)]);
    const send = (from: number, to: number) =>
      app.http.post('/api/ledger/transfer').set(bearer(users[from]!.token)).send({ receiverPublicKey: users[to]!.ledgerPublicKey, amount: 1 });

    // Alternating wallets: each send finds the other wallet's submitter idle and lets it go.
    for (const [from, to] of [[0, 1], [1, 2], [0, 1], [2, 0], [1, 2], [0, 1]] as const) {
      expect((await send(from, to)).status).toBe(200);
    }
    expect(app.container.ledgerModule.accounts.walletSubmitterCount).toBeLessThanOrEqual(1);

    // A ring at once, three rounds: busy submitters are kept past the limit, never doubled.
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all([send(0, 1), send(1, 2), send(2, 0)]);
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    }

    // No wallet ever had two submitters: each transfer rode in one envelope, none refused (two
    // submitters of one wallet would each number its sequence, and one of them would be refused).
    const envelopes = rowsOf<{ status: string }>(
      await app.container.database.db.execute(sql`select status from ledger_envelopes where source_account in (${sql.join(users.map((u) => sql`${u.ledgerPublicKey}`), sql`, `)})`),
    );
    expect(envelopes.map((e) => e.status)).toEqual(Array(15).fill('confirmed'));

    // One after another: user 0 sent 3 and received 1, user 1 received 3 and sent 2, user 2 received 2
    // and sent 1; the ring moved nothing on balance.
    expect(await ledgerBalance(ledger.url, users[0]!.ledgerPublicKey)).toBe('8.0000000');
    expect(await ledgerBalance(ledger.url, users[1]!.ledgerPublicKey)).toBe('11.0000000');
    expect(await ledgerBalance(ledger.url, users[2]!.ledgerPublicKey)).toBe('11.0000000');
  });
});
