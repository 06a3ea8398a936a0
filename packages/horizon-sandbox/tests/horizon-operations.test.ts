import {
  Account,
  Asset,
  AuthClawbackEnabledFlag,
  AuthRevocableFlag,
  Keypair,
  MuxedAccount,
  Operation,
  TransactionBuilder,
  type Horizon,
} from '@stellar/stellar-sdk';
import { getJson } from './fault-helpers';
import { holderOf, issuerWith, newAsset } from './issuer-helpers';
import { sponsored } from './reserve-helpers';
import { buildTransaction, fundedAccount, startSandbox, submitExpectingFailure, type SandboxHarness } from './sandbox-harness';
import { stoppedWallClock } from './test-clocks';

type OperationRecord = Horizon.ServerApi.OperationRecord & Record<string, unknown>;
type Page = { _links: Record<'self' | 'next' | 'prev', { href: string }>; _embedded: { records: Record<string, unknown>[] } };

/** Horizon's TOID: an operation's id and paging token (ledger, application order, 1-based index). */
const toid = (ledger: number, order: number, index: number) => ((BigInt(ledger) << 32n) | (BigInt(order) << 12n) | BigInt(index)).toString();

const payment = (destination: string, amount: string, asset = Asset.native()) => Operation.payment({ destination, asset, amount });

async function submit(harness: SandboxHarness, source: Keypair, operations: Parameters<typeof buildTransaction>[2], signers?: Keypair[]) {
  return harness.horizon.submitTransaction(await buildTransaction(harness, source, operations, signers ? { signers } : {}));
}

describe('GET /operations', () => {
  let harness: SandboxHarness;
  beforeAll(async () => {
    harness = await startSandbox();
  });
  afterAll(() => harness.close());

  it('follows the ledger from cursor=now: an empty page, whose next link later holds the new operations in TOID order', async () => {
    const [payer, payee] = [await fundedAccount(harness), await fundedAccount(harness)];
    const now = await harness.horizon.operations().cursor('now').limit(2).join('transactions').includeFailed(false).call();
    expect(now.records).toEqual([]);

    const first = await submit(harness, payer, [payment(payee.publicKey(), '1'), payment(payee.publicKey(), '2')]);
    const second = await submit(harness, payee, [payment(payer.publicKey(), '0.5')]);

    const page = await now.next();
    const { created_at: createdAt } = await harness.horizon.transactions().transaction(first.hash).call();
    expect(page.records.map((record) => record.paging_token)).toEqual([toid(first.ledger, 1, 1), toid(first.ledger, 1, 2)]);
    const [op] = page.records as OperationRecord[];
    expect(op).toMatchObject({
      id: toid(first.ledger, 1, 1),
      paging_token: toid(first.ledger, 1, 1),
      transaction_successful: true,
      source_account: payer.publicKey(),
      type: 'payment',
      type_i: 1,
      created_at: createdAt,
      transaction_hash: first.hash,
      asset_type: 'native',
      from: payer.publicKey(),
      to: payee.publicKey(),
      amount: '1.0000000',
    });
    // join=transactions: the SDK keeps the embedded resource as transaction_attr (and its ledger as ledger_attr)
    expect(op?.transaction_attr).toMatchObject({
      hash: first.hash,
      ledger_attr: first.ledger,
      created_at: createdAt,
      fee_charged: '200',
      envelope_xdr: first.envelope_xdr,
      result_xdr: first.result_xdr,
      successful: true,
    });
    expect(await (op?.transaction as () => Promise<{ hash: string }>)()).toMatchObject({ hash: first.hash });

    const rest = await page.next();
    expect(rest.records.map((record) => [record.paging_token, record.transaction_hash])).toEqual([[toid(second.ledger, 1, 1), second.hash]]);
    expect((await rest.next()).records).toEqual([]);
  });

  it('pages backwards with order=desc, and links keep the other parameters as Horizon writes them', async () => {
    const [payer, payee] = [await fundedAccount(harness), await fundedAccount(harness)];
    const sent = await submit(harness, payer, [payment(payee.publicKey(), '1'), payment(payee.publicKey(), '2'), payment(payee.publicKey(), '3')]);
    const cursor = toid(sent.ledger, 1, 3);
    const { status, body } = await getJson<Page>(harness, `/operations?order=desc&limit=2&cursor=${cursor}&join=transactions`);
    expect(status).toBe(200);
    expect(body._embedded.records.map((record) => record.id)).toEqual([toid(sent.ledger, 1, 2), toid(sent.ledger, 1, 1)]);
    expect(body._links.self.href).toBe(`${harness.url}/operations?cursor=${cursor}&join=transactions&limit=2&order=desc`);
    expect(body._links.next.href).toBe(`${harness.url}/operations?cursor=${toid(sent.ledger, 1, 1)}&join=transactions&limit=2&order=desc`);
    expect(body._links.prev.href).toBe(`${harness.url}/operations?cursor=${toid(sent.ledger, 1, 2)}&join=transactions&limit=2&order=asc`);
  });

  it('leaves out the operations of failed transactions unless include_failed=true, which marks them', async () => {
    const [payer, payee] = [await fundedAccount(harness), await fundedAccount(harness)];
    const before = (await harness.horizon.ledgers().order('desc').limit(1).call()).records[0]?.sequence ?? 0;
    const failing = await buildTransaction(harness, payer, [payment(payee.publicKey(), '1'), payment(payee.publicKey(), '20000')]);
    expect((await submitExpectingFailure(harness, failing)).data.extras.result_codes.operations).toEqual(['op_success', 'op_underfunded']);
    const after = await submit(harness, payer, [payment(payee.publicKey(), '5')]);
    const cursor = toid(before, 0xfffff, 0xfff);

    const successful = await harness.horizon.operations().cursor(cursor).call();
    expect(successful.records.map((record) => record.transaction_hash)).toEqual([after.hash]);

    const all = await harness.horizon.operations().cursor(cursor).includeFailed(true).call();
    const failedHash = failing.hash().toString('hex');
    expect(all.records.map((record) => [record.transaction_hash, record.transaction_successful, (record as OperationRecord).amount])).toEqual([
      [failedHash, false, '1.0000000'],
      [failedHash, false, '20000.0000000'],
      [after.hash, true, '5.0000000'],
    ]);
    const joined = await getJson<Page>(harness, `/operations?cursor=${cursor}&include_failed=true&join=transactions&limit=1`);
    expect(joined.body._embedded.records[0]?.transaction).toMatchObject({ hash: failedHash, successful: false, fee_charged: '200' });
  });

  it('names a fee-bumped operation by the fee bump\'s hash, its inner hash reachable in the joined transaction', async () => {
    const [payer, payee, sponsor] = [await fundedAccount(harness), await fundedAccount(harness), await fundedAccount(harness)];
    const inner = await buildTransaction(harness, payer, [payment(payee.publicKey(), '7')]);
    const bump = TransactionBuilder.buildFeeBumpTransaction(sponsor, '200', inner, harness.passphrase);
    bump.sign(sponsor);
    const sent = await harness.horizon.submitTransaction(bump);
    const bumpHash = bump.hash().toString('hex');
    expect(sent.hash).toBe(bumpHash);

    const { records } = await harness.horizon.operations().cursor(toid(sent.ledger, 0, 0)).limit(1).join('transactions').call();
    const [op] = records as OperationRecord[];
    expect(op).toMatchObject({ transaction_hash: bumpHash, source_account: payer.publicKey(), amount: '7.0000000' });
    expect(op?.transaction_attr).toMatchObject({
      hash: bumpHash,
      fee_account: sponsor.publicKey(),
      fee_bump_transaction: { hash: bumpHash, signatures: [bump.signatures[0]?.signature().toString('base64')] },
      inner_transaction: { hash: inner.hash().toString('hex'), signatures: [inner.signatures[0]?.signature().toString('base64')], max_fee: '100' },
    });
  });

  it('shows an operation\'s own source and muxed accounts as Horizon does', async () => {
    const [signer, spender, payee] = [await fundedAccount(harness), await fundedAccount(harness), await fundedAccount(harness)];
    const muxedPayee = new MuxedAccount(new Account(payee.publicKey(), '0'), '7').accountId();
    const muxedSpender = new MuxedAccount(new Account(spender.publicKey(), '0'), '11').accountId();
    const sent = await submit(
      harness,
      signer,
      [Operation.payment({ source: muxedSpender, destination: muxedPayee, asset: Asset.native(), amount: '1' })],
      [signer, spender],
    );
    const { body } = await getJson<OperationRecord>(harness, `/operations/${toid(sent.ledger, 1, 1)}`);
    expect(body).toMatchObject({
      source_account: spender.publicKey(),
      source_account_muxed: muxedSpender,
      source_account_muxed_id: '11',
      from: spender.publicKey(),
      from_muxed: muxedSpender,
      from_muxed_id: '11',
      to: payee.publicKey(),
      to_muxed: muxedPayee,
      to_muxed_id: '7',
      transaction_hash: sent.hash,
    });
    // the operation's source takes part in it; the transaction's source that only signed and paid the fee does not
    const spenderOps = await harness.horizon.operations().forAccount(spender.publicKey()).order('desc').limit(1).call();
    expect(spenderOps.records[0]?.id).toBe(toid(sent.ledger, 1, 1));
    const signerOps = await harness.horizon.operations().forAccount(signer.publicKey()).call();
    expect(signerOps.records.map((record) => record.type)).toEqual(['create_account']);
  });

  it('gives every operation the sandbox applies its type and Horizon\'s fields', async () => {
    const issuer = await issuerWith(harness, AuthRevocableFlag | AuthClawbackEnabledFlag);
    const asset = newAsset('OPS', issuer);
    const holder = await holderOf(harness, asset, issuer, '10');
    const newcomer = Keypair.random();
    const signerKey = Keypair.random().publicKey();

    const setup = await submit(
      harness,
      issuer,
      [
        Operation.setOptions({ homeDomain: 'example.com', signer: { ed25519PublicKey: signerKey, weight: 1 }, lowThreshold: 0 }),
        Operation.setTrustLineFlags({ trustor: holder.publicKey(), asset, flags: { authorized: false, authorizedToMaintainLiabilities: true } }),
        Operation.clawback({ asset, from: holder.publicKey(), amount: '2' }),
        ...sponsored(issuer.publicKey(), newcomer.publicKey(), [Operation.createAccount({ destination: newcomer.publicKey(), startingBalance: '0' })]),
        Operation.revokeSignerSponsorship({ account: issuer.publicKey(), signer: { ed25519PublicKey: signerKey } }),
      ],
      [issuer, newcomer],
    ).catch(async (error: unknown) => {
      throw new Error(`setup failed: ${JSON.stringify((error as { response?: { data?: unknown } }).response?.data)}`);
    });
    const { records } = await harness.horizon.operations().forAccount(issuer.publicKey()).cursor(toid(setup.ledger, 0, 0)).limit(20).call();
    const byType = (records as OperationRecord[]).map(({ type, type_i }) => [type, type_i]);
    expect(byType).toEqual([
      ['set_options', 5],
      ['set_trust_line_flags', 21],
      ['clawback', 19],
      ['begin_sponsoring_future_reserves', 16],
      ['create_account', 0],
      ['end_sponsoring_future_reserves', 17],
      ['revoke_sponsorship', 18],
    ]);
    const [options, flags, clawback, begin, creation, end, revokeSigner] = records as OperationRecord[];
    expect(options).toMatchObject({ home_domain: 'example.com', signer_key: signerKey, signer_weight: 1, low_threshold: 0 });
    expect(options).not.toHaveProperty('set_flags');
    expect(flags).toMatchObject({
      trustor: holder.publicKey(),
      asset_code: 'OPS',
      set_flags: [2],
      set_flags_s: ['authorized_to_maintain_liabilites'],
      clear_flags: [1],
      clear_flags_s: ['authorized'],
    });
    expect(clawback).toMatchObject({ from: holder.publicKey(), amount: '2.0000000', asset_type: 'credit_alphanum4', asset_issuer: issuer.publicKey() });
    expect(begin).toMatchObject({ sponsored_id: newcomer.publicKey() });
    expect(creation).toMatchObject({ funder: issuer.publicKey(), account: newcomer.publicKey(), starting_balance: '0.0000000' });
    expect(end).toMatchObject({ source_account: newcomer.publicKey(), begin_sponsor: issuer.publicKey() });
    expect(revokeSigner).toMatchObject({ signer_account_id: issuer.publicKey(), signer_key: signerKey });

    // the holder takes part in the flags and the clawback; its trustline came from its own change_trust
    const holderOps = await harness.horizon.operations().forAccount(holder.publicKey()).limit(20).call();
    expect(holderOps.records.map((record) => record.type)).toEqual(['create_account', 'change_trust', 'payment', 'set_trust_line_flags', 'clawback']);
    expect(holderOps.records[1]).toMatchObject({ trustor: holder.publicKey(), trustee: issuer.publicKey(), limit: '922337203685.4775807', asset_code: 'OPS' });
  });

  it('answers one operation by id, 404 for an unknown one, and refuses bad parameters as Horizon does', async () => {
    const [payer, payee] = [await fundedAccount(harness), await fundedAccount(harness)];
    const sent = await submit(harness, payer, [payment(payee.publicKey(), '1')]);
    const one = await harness.horizon.operations().operation(toid(sent.ledger, 1, 1)).call();
    expect(one).toMatchObject({ id: toid(sent.ledger, 1, 1), transaction_hash: sent.hash, type: 'payment' });
    expect((await getJson(harness, `/operations/${toid(sent.ledger, 1, 2)}`)).status).toBe(404);

    const refusals: [string, string][] = [
      ['/operations?limit=0', 'limit'],
      ['/operations?limit=201', 'limit'],
      ['/operations?order=up', 'order'],
      ['/operations?cursor=abc', 'cursor'],
      ['/operations?include_failed=maybe', 'include_failed'],
      ['/operations?join=ledgers', 'join'],
    ];
    for (const [path, field] of refusals) {
      const { status, body } = await getJson(harness, path);
      expect({ path, status, body }).toMatchObject({
        path,
        status: 400,
        body: { type: 'https://stellar.org/horizon-errors/bad_request', extras: { invalid_field: field } },
      });
    }
    expect((await getJson(harness, '/operations?join=ledgers')).body).toMatchObject({ extras: { reason: 'Accepted values: transactions' } });
  });
});

describe('GET /operations with Horizon keeping 3 ledgers of history', () => {
  let harness: SandboxHarness;
  let oldPayment: Horizon.HorizonApi.SubmitTransactionResponse;
  beforeAll(async () => {
    harness = await startSandbox({ horizonRetentionLedgers: 3 });
    const [payer, payee] = [await fundedAccount(harness), await fundedAccount(harness)];
    oldPayment = await submit(harness, payer, [payment(payee.publicKey(), '1')]);
    for (let i = 0; i < 3; i++) await fundedAccount(harness);
  });
  afterAll(() => harness.close());

  it("reports its oldest ledger as history_elder_ledger, which the service's health reads", async () => {
    const root = (await getJson(harness, '/')).body;
    expect(root.history_elder_ledger).toBe((root.history_latest_ledger as number) - 2);
    expect(root.history_elder_ledger).toBeGreaterThan(oldPayment.ledger);
  });

  it('answers a descending page from before its elder ledger with 410 before_history', async () => {
    const response = await getJson(harness, `/operations?order=desc&cursor=${toid(oldPayment.ledger, 1, 2)}`);
    expect(response.status).toBe(410);
    expect(response.contentType).toContain('application/problem+json');
    expect(response.body).toEqual({
      type: 'https://stellar.org/horizon-errors/before_history',
      title: 'Data Requested Is Before Recorded History',
      status: 410,
      detail:
        "This horizon instance is configured to only track a portion of the stellar network's latest history. " +
        'This request is asking for results prior to the recorded history known to this horizon instance.',
    });
    await expect(harness.horizon.operations().order('desc').cursor(toid(oldPayment.ledger, 1, 2)).call()).rejects.toMatchObject({
      response: { status: 410 },
    });
  });

  it('starts an ascending page from before history at its elder ledger, and forgets older records', async () => {
    const root = (await getJson(harness, '/')).body;
    const elder = root.history_elder_ledger as number;
    const page = await harness.horizon.operations().cursor(toid(oldPayment.ledger - 1, 0, 0)).limit(200).call();
    expect(page.records.length).toBeGreaterThan(0);
    expect(page.records.every((record) => BigInt(record.paging_token) >= BigInt(toid(elder, 0, 0)))).toBe(true);
    expect((await harness.horizon.operations().call()).records[0]?.paging_token).toBe(page.records[0]?.paging_token);
    const newestFirst = await harness.horizon.operations().order('desc').limit(200).call();
    expect(newestFirst.records.at(-1)?.paging_token).toBe(page.records[0]?.paging_token);

    expect((await getJson(harness, `/transactions/${oldPayment.hash}`)).status).toBe(404);
    expect((await getJson(harness, `/operations/${toid(oldPayment.ledger, 1, 1)}`)).status).toBe(404);
    expect((await getJson(harness, `/ledgers/${oldPayment.ledger}`)).status).toBe(404);
  });
});

describe('GET /operations from a lagging read side', () => {
  let harness: SandboxHarness;
  // the lag passes only when a test moves the clock: however slow the reads, the ledger stays hidden
  stoppedWallClock();
  beforeAll(async () => {
    harness = await startSandbox();
  });
  afterAll(() => harness.close());

  it('shows only the ledgers it has ingested, with their Latest-Ledger, until it catches up', async () => {
    const [payer, payee] = [await fundedAccount(harness), await fundedAccount(harness)];
    const before = await fetch(`${harness.url}/operations?order=desc&limit=1`);
    const ingested = Number(before.headers.get('latest-ledger'));

    harness.faults.set({ mode: 'lag', lagMs: 60_000, next: 1 });
    const sent = await submit(harness, payer, [payment(payee.publicKey(), '1')]);
    expect(sent.ledger).toBe(ingested + 1);

    const during = await fetch(`${harness.url}/operations?order=desc&limit=5`);
    expect(during.headers.get('latest-ledger')).toBe(String(ingested));
    const hidden = ((await during.json()) as Page)._embedded.records;
    expect(hidden.map((record) => record.transaction_hash)).not.toContain(sent.hash);
    expect(hidden.every((record) => Number(BigInt(record.paging_token as string) >> 32n) <= ingested)).toBe(true);
    const byAccount = await fetch(`${harness.url}/accounts/${payee.publicKey()}/operations?order=desc&limit=1`);
    expect(byAccount.headers.get('latest-ledger')).toBe(String(ingested));
    expect((((await byAccount.json()) as Page)._embedded.records[0] as { type: string }).type).toBe('create_account');
    expect((await getJson(harness, `/operations/${toid(sent.ledger, 1, 1)}`)).status).toBe(404);

    harness.faults.clear();
    const after = await fetch(`${harness.url}/operations?order=desc&limit=1`);
    expect(after.headers.get('latest-ledger')).toBe(String(sent.ledger));
    expect(((await after.json()) as Page)._embedded.records[0]).toMatchObject({ transaction_hash: sent.hash });
  });
});
