import { Asset, Keypair, NotFoundError, Operation } from '@stellar/stellar-sdk';
import { SANDBOX_NETWORK_PASSPHRASE } from '../src';
import { buildTransaction, fundedAccount, startSandbox, type SandboxHarness } from './sandbox-harness';

let harness: SandboxHarness;

beforeAll(async () => {
  harness = await startSandbox();
});

afterAll(() => harness.close());

const getJson = async (path: string) => {
  const response = await fetch(`${harness.url}${path}`);
  return { status: response.status, contentType: response.headers.get('content-type'), body: (await response.json()) as Record<string, unknown> };
};

describe('GET /', () => {
  it('describes the network: passphrase and latest ledger', async () => {
    const { status, body } = await getJson('/');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      network_passphrase: SANDBOX_NETWORK_PASSPHRASE,
      history_elder_ledger: 1,
      current_protocol_version: expect.any(Number),
    });
    expect(body.core_latest_ledger).toBe(body.history_latest_ledger);
  });
});

describe('GET /accounts/:id', () => {
  it('returns every AccountResponse field the SDK reads', async () => {
    const keypair = await fundedAccount(harness);
    const account = await harness.horizon.accounts().accountId(keypair.publicKey()).call();
    expect(account).toMatchObject({
      id: keypair.publicKey(),
      account_id: keypair.publicKey(),
      sequence: expect.stringMatching(/^\d+$/),
      subentry_count: 0,
      thresholds: { low_threshold: 0, med_threshold: 0, high_threshold: 0 },
      flags: { auth_required: false, auth_revocable: false, auth_immutable: false, auth_clawback_enabled: false },
      balances: [{ balance: '10000.0000000', asset_type: 'native', buying_liabilities: '0.0000000', selling_liabilities: '0.0000000' }],
      signers: [{ key: keypair.publicKey(), weight: 1, type: 'ed25519_public_key' }],
      paging_token: keypair.publicKey(),
      last_modified_ledger: expect.any(Number),
      num_sponsoring: 0,
      num_sponsored: 0,
    });
    // the SDK turns the data link into a function and keeps the values in data_attr
    expect(account.data_attr).toEqual({});
  });

  it('answers an unknown account with Horizon\'s 404 problem', async () => {
    const { status, contentType, body } = await getJson(`/accounts/${Keypair.random().publicKey()}`);
    expect(status).toBe(404);
    expect(contentType).toContain('application/problem+json');
    expect(body).toMatchObject({
      type: 'https://stellar.org/horizon-errors/not_found',
      title: 'Resource Missing',
      status: 404,
      detail: expect.any(String),
    });
    await expect(harness.horizon.loadAccount(Keypair.random().publicKey())).rejects.toBeInstanceOf(NotFoundError);
  });

  it('answers a malformed account id with a 400 bad_request problem', async () => {
    const { status, body } = await getJson('/accounts/GNOTANACCOUNT');
    expect(status).toBe(400);
    expect(body).toMatchObject({ type: 'https://stellar.org/horizon-errors/bad_request', status: 400, extras: { invalid_field: 'account_id' } });
  });
});

describe('GET /transactions/:hash', () => {
  it('returns the transaction record of a submitted transaction', async () => {
    const [payer, payee] = await Promise.all([fundedAccount(harness), fundedAccount(harness)]);
    const tx = await buildTransaction(harness, payer, [Operation.payment({ destination: payee.publicKey(), asset: Asset.native(), amount: '3' })]);
    const submittedAt = Math.floor(Date.now() / 1000) * 1000; // created_at counts whole seconds
    const submitted = await harness.horizon.submitTransaction(tx);

    const record = await harness.horizon.transactions().transaction(submitted.hash).call();
    const readAt = Date.now();

    expect(record).toMatchObject({
      id: submitted.hash,
      hash: submitted.hash,
      // as with real Horizon, the SDK turns `ledger` into a link-following function and keeps the number here
      ledger_attr: submitted.ledger,
      successful: true,
      source_account: payer.publicKey(),
      source_account_sequence: tx.sequence,
      fee_account: payer.publicKey(),
      fee_charged: '100',
      max_fee: '100',
      operation_count: 1,
      envelope_xdr: tx.toXDR(),
      result_xdr: submitted.result_xdr,
      memo_type: 'none',
      signatures: [tx.signatures[0]?.signature().toString('base64')],
    });
    // closed between the submission and the read (an order, however long the two took)
    const createdAt = new Date(record.created_at).getTime();
    expect(createdAt >= submittedAt && createdAt <= readAt).toBe(true);
  });

  it('answers an unknown hash with a 404 problem', async () => {
    const { status, body } = await getJson(`/transactions/${'ab'.repeat(32)}`);
    expect(status).toBe(404);
    expect(body).toMatchObject({ type: 'https://stellar.org/horizon-errors/not_found', status: 404 });
  });
});

describe('GET /accounts/:id/payments', () => {
  it('lists the account\'s create_account and payment operations, newest first with order=desc and a limit', async () => {
    const [issuer, holder, friend] = await Promise.all([fundedAccount(harness), fundedAccount(harness), fundedAccount(harness)]);
    const asset = new Asset('PAY', issuer.publicKey());
    await harness.horizon.submitTransaction(await buildTransaction(harness, holder, [Operation.changeTrust({ asset })]));
    await harness.horizon.submitTransaction(
      await buildTransaction(harness, issuer, [Operation.payment({ destination: holder.publicKey(), asset, amount: '25' })]),
    );
    await harness.horizon.submitTransaction(
      await buildTransaction(harness, holder, [Operation.payment({ destination: friend.publicKey(), asset: Asset.native(), amount: '1.5' })]),
    );

    const all = await harness.horizon.payments().forAccount(holder.publicKey()).order('asc').call();
    expect(all.records.map((record) => record.type)).toEqual(['create_account', 'payment', 'payment']);
    expect(all.records[0]).toMatchObject({ account: holder.publicKey(), starting_balance: '10000.0000000' });
    expect(all.records[1]).toMatchObject({
      from: issuer.publicKey(),
      to: holder.publicKey(),
      asset_type: 'credit_alphanum4',
      asset_code: 'PAY',
      asset_issuer: issuer.publicKey(),
      amount: '25.0000000',
      transaction_successful: true,
    });

    const newest = await harness.horizon.payments().forAccount(holder.publicKey()).order('desc').limit(2).call();
    expect(newest.records.map((record) => record.id)).toEqual([all.records[2]?.id, all.records[1]?.id]);
    expect(newest.records[0]).toMatchObject({ type: 'payment', from: holder.publicKey(), to: friend.publicKey(), amount: '1.5000000', asset_type: 'native' });

    const older = await newest.next();
    expect(older.records.map((record) => record.id)).toEqual([all.records[0]?.id]);
    // the changeTrust is not a payment: it never appears
    expect(all.records).toHaveLength(3);
  });

  it('rejects a limit above 200', async () => {
    const { status, body } = await getJson(`/accounts/${Keypair.random().publicKey()}/payments?limit=500`);
    expect(status).toBe(400);
    expect(body).toMatchObject({ extras: { invalid_field: 'limit' } });
  });
});

describe('GET /fee_stats', () => {
  it('reports a 100 stroop base fee in Horizon\'s shape, which fetchBaseFee reads', async () => {
    const stats = await harness.horizon.feeStats();
    expect(stats.last_ledger_base_fee).toBe('100');
    for (const distribution of [stats.fee_charged, stats.max_fee]) {
      for (const key of ['max', 'min', 'mode', 'p10', 'p20', 'p30', 'p40', 'p50', 'p60', 'p70', 'p80', 'p90', 'p95', 'p99'] as const) {
        expect(distribution[key]).toMatch(/^\d+$/);
      }
    }
    expect(stats.fee_charged.p50).toBe('100');
    await expect(harness.horizon.fetchBaseFee()).resolves.toBe(100);
  });
});

describe('GET /friendbot', () => {
  it('funds a new account with 10000 XLM', async () => {
    const keypair = Keypair.random();
    const response = await fetch(`${harness.url}/friendbot?addr=${keypair.publicKey()}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ successful: true, hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const account = await harness.horizon.loadAccount(keypair.publicKey());
    expect(account.balances).toEqual([expect.objectContaining({ asset_type: 'native', balance: '10000.0000000' })]);
  });

  it('refuses to fund an account that already exists', async () => {
    const keypair = await fundedAccount(harness);
    const response = await fetch(`${harness.url}/friendbot?addr=${keypair.publicKey()}`);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      type: 'https://stellar.org/horizon-errors/transaction_failed',
      extras: { result_codes: { transaction: 'tx_failed', operations: ['op_already_exists'] } },
    });
    expect((await harness.horizon.loadAccount(keypair.publicKey())).balances[0]?.balance).toBe('10000.0000000');
  });

  it('rejects an address that is not an account id', async () => {
    const response = await fetch(`${harness.url}/friendbot?addr=nobody`);
    expect(response.status).toBe(400);
  });
});

describe('GET /ledgers', () => {
  it('lists closed ledgers and returns one by sequence', async () => {
    await fundedAccount(harness);
    const latest = await harness.horizon.ledgers().order('desc').limit(1).call();
    const ledger = latest.records[0];
    expect(ledger?.successful_transaction_count).toBeGreaterThan(0);
    const { status, body } = await getJson(`/ledgers/${ledger?.sequence}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ sequence: ledger?.sequence, hash: ledger?.hash, base_fee_in_stroops: 100, base_reserve_in_stroops: 5_000_000 });
  });
});

describe('unknown routes', () => {
  it('answer with a 404 problem', async () => {
    const { status, body } = await getJson('/offers');
    expect(status).toBe(404);
    expect(body).toMatchObject({ type: 'https://stellar.org/horizon-errors/not_found' });
  });
});
