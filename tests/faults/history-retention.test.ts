import type { LedgerApi, TransactionLookup } from '../../src/clients/ledger-api';
import { adminToken, bearer, createUser } from '../helpers/factories';
import { eventually } from '../helpers/eventually';
import { allEnvelopes, crashAroundSending, expireLeases } from '../helpers/journal-fixtures';
import { ledgerBalance } from '../helpers/ledger-fixtures';
import { mintRecords, paidIntent, paymentRow } from '../helpers/payment-fixtures';
import { LEDGER_APIS } from '../helpers/sandboxes';
import { withSandboxes } from '../helpers/with-sandboxes';

/**
 * The ledger API keeps a window of history (RPC about 7 days by default; Horizon providers prune
 * too). Once every ledger an envelope could have entered is older than the window, "not found"
 * proves nothing: such an envelope is never judged dead and rebuilt (its payment would be minted a
 * second time if it had applied). It stays open, /readyz warns, a metric counts it, and the audit
 * lists it for an operator. Here the window is a few seconds of ledgers.
 */

const WINDOW_LEDGERS = 30;

/** Every lookup by hash made through `client` from now on, with the answer it got (a pass-through observer). */
function observeLookups(client: LedgerApi): { hash: string; answer: TransactionLookup }[] {
  const seen: { hash: string; answer: TransactionLookup }[] = [];
  const lookup = client.lookupTransaction.bind(client);
  client.lookupTransaction = async (hash) => {
    const answer = await lookup(hash);
    seen.push({ hash, answer });
    return answer;
  };
  return seen;
}

describe.each(LEDGER_APIS)(`through %s, with a history window of ${WINDOW_LEDGERS} ledgers`, (api) => {
  const { ledger, app } = withSandboxes({
    ledger: { api, ledgerCloseMs: 100, idleCloseMs: 100, retentionLedgers: WINDOW_LEDGERS },
    // Horizon does not say where its history starts: the operator declares the window.
    app: { env: { LEDGER_TX_TIMEOUT_LEDGERS: '10', LEDGER_HISTORY_RETENTION_LEDGERS: String(WINDOW_LEDGERS) } },
  });

  it('leaves an envelope whose ledgers left the window open and reported, and never signs its payment again', async () => {
    const admin = await adminToken(app);
    await app.http.post('/api/ledger/create-asset').set(bearer(admin)).send({ assetCode: 'WLT', amount: '1000' }).expect(200);
    const buyer = await createUser(app);
    const intent = await paidIntent(app, buyer, 50);
    // The process stores the mint envelope, marks it sent, and dies before it reaches the ledger:
    // whether it applied is unknown to the journal.
    const crash = crashAroundSending(app.container, 'before-send');
    await app.http.post('/api/payments/verify-payment').set(bearer(buyer.token)).send({ reference: intent.reference }).expect(200);
    crash.restore();
    const stored = crash.crashed[0]!;
    await app.container.ledgerModule.repository.markSubmitted(stored.envelopeId);
    const [row] = (await allEnvelopes(app)).filter((e) => e.hash === stored.hash);
    expect(row).toMatchObject({ status: 'submitted', firstLedger: expect.any(Number), lastLedger: expect.any(Number) });

    // The ledgers pass until the API no longer holds the envelope's first possible ledger.
    await eventually(async () => ((await app.container.ledgerModule.client.health()).oldestLedger > row!.firstLedger! ? true : undefined), 'its ledgers to leave the window', { intervalMs: 200 });
    const lookups = observeLookups(app.container.ledgerModule.client);
    await expireLeases(app);
    await app.container.reconciler.drain();

    // The reconciler did look at it: it asked for the hash and was told "absent" by an API whose
    // history no longer starts at or before the envelope's first ledger (an answer that proves
    // nothing), then sent the same bytes again. Had it skipped the envelope, what follows would
    // hold as well.
    const asked = lookups.filter((l) => l.hash === stored.hash).map(({ answer }) => (answer.kind === 'absent' ? ['absent', answer.oldestLedger > row!.firstLedger!] : [answer.kind]));
    expect(asked).toContainEqual(['absent', true]);
    const after = (await allEnvelopes(app)).filter((e) => e.hash === stored.hash);
    expect(after.map((e) => [e.status, e.submitCount])).toEqual([['submitted', row!.submitCount + 1]]);
    // Never signed again: the payment's one mint still rides in the stored envelope.
    expect(await paymentRow(app, intent.reference)).toMatchObject({ status: 'minting' });
    expect((await mintRecords(app, buyer.userId)).map((r) => r.envelopeId)).toEqual([stored.envelopeId]);
    expect(await ledgerBalance(ledger.url, buyer.ledgerPublicKey)).toBe('0.0000000');

    const ready = await app.http.get('/readyz').expect(200);
    expect(ready.body.warnings).toEqual([expect.stringMatching(/^1 submitted envelope\(s\) could have entered ledgers older than the ledger API's history/)]);
    const metrics = (await app.http.get('/metrics').expect(200)).text;
    expect(metrics).toMatch(/^ledger_envelopes_beyond_retention 1$/m);
    const audit = await app.container.audit();
    expect(audit.beyondRetention).toContain(stored.hash);
    expect(audit.discrepancies).toContainEqual(expect.stringMatching(new RegExp(`^envelope ${stored.hash}: still submitted, and its ledgers have left`)));
  });
});
