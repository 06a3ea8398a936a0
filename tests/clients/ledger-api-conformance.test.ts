import { Account, Asset, FeeBumpTransaction, Keypair, Operation, TimeoutInfinite, TransactionBuilder, xdr, type Transaction } from '@stellar/stellar-sdk';
import { SANDBOX_NETWORK_PASSPHRASE } from '@wallet/horizon-sandbox';
import { HorizonClient } from '../../src/clients/horizon.client';
import { balanceOf, type LedgerApi, type SubmitAnswer } from '../../src/clients/ledger-api';
import { LedgerRejectedError, LedgerUnavailableError } from '../../src/clients/ledger-errors';
import { RpcClient } from '../../src/clients/rpc.client';
import { LEDGER_APIS, startLedgerSandbox, type LedgerApiKind, type RunningLedger } from '../helpers/sandboxes';
import { PATIENCE_MS } from '../helpers/patience';

/**
 * One conformance suite for the ledger port: the RPC adapter and the Horizon adapter, each against
 * the sandbox ledger over HTTP, must give the service the same answers: the same accounts and
 * balances, the same refusal codes, the same hashes for a fee bump, the same evidence of absence,
 * and the same verdict on an answer lost after the ledger took the envelope.
 */

let ledger: RunningLedger;
beforeAll(async () => {
  ledger = await startLedgerSandbox();
});
afterAll(() => ledger.stop());
afterEach(() => ledger.faults.clear());

function clientFor(api: LedgerApiKind, options: { submitTimeoutMs?: number } = {}): LedgerApi {
  // The clients' own deadlines play no part here (every answer comes at once): they wait as long as the suite.
  const common = { networkPassphrase: SANDBOX_NETWORK_PASSPHRASE, readTimeoutMs: PATIENCE_MS, submitTimeoutMs: options.submitTimeoutMs ?? PATIENCE_MS };
  return api === 'rpc' ? new RpcClient({ rpcUrl: ledger.rpcUrl, ...common }) : new HorizonClient({ horizonUrl: ledger.url, retentionLedgers: 120_960, ...common });
}

async function funded(): Promise<Keypair> {
  const pair = Keypair.random();
  const res = await fetch(`${ledger.url}/friendbot?addr=${pair.publicKey()}`);
  expect(res.ok).toBe(true);
  return pair;
}

async function payment(client: LedgerApi, source: Keypair, destination: string, amount: string, asset = Asset.native()): Promise<Transaction> {
  const loaded = (await client.loadAccount(source.publicKey()))!;
  const tx = new TransactionBuilder(new Account(source.publicKey(), loaded.sequence), { fee: '100', networkPassphrase: client.networkPassphrase })
    .addOperation(Operation.payment({ destination, asset, amount }))
    .setTimeout(TimeoutInfinite)
    .build();
  tx.sign(source);
  return tx;
}

function feeBumped(inner: Transaction, feeSource: Keypair, perOperation = '200'): FeeBumpTransaction {
  const bump = TransactionBuilder.buildFeeBumpTransaction(feeSource, perOperation, inner, SANDBOX_NETWORK_PASSPHRASE);
  bump.sign(feeSource);
  return bump;
}

/** Submits `tx` and expects it applied: the answer's applied variant. */
async function applied(client: LedgerApi, tx: Transaction | FeeBumpTransaction): Promise<Extract<SubmitAnswer, { kind: 'applied' }>> {
  const answer = await client.submit(tx);
  expect(answer).toMatchObject({ kind: 'applied' });
  return answer as Extract<SubmitAnswer, { kind: 'applied' }>;
}

/** Submits `tx` and expects it refused: the refusal the answer carries. */
async function refusal(client: LedgerApi, tx: Transaction | FeeBumpTransaction): Promise<LedgerRejectedError> {
  const answer = await client.submit(tx);
  expect(answer).toMatchObject({ kind: 'refused', error: expect.any(LedgerRejectedError) });
  return (answer as Extract<SubmitAnswer, { kind: 'refused' }>).error;
}

describe.each(LEDGER_APIS)('the %s adapter', (api) => {
  it('reads an account with its XLM, its trustline for the asset asked, and its reserves', async () => {
    const client = clientFor(api);
    const [issuer, holder] = [await funded(), await funded()];
    const asset = new Asset('CNF', issuer.publicKey());
    const trust = new TransactionBuilder(new Account(holder.publicKey(), (await client.loadAccount(holder.publicKey()))!.sequence), { fee: '100', networkPassphrase: SANDBOX_NETWORK_PASSPHRASE })
      .addOperation(Operation.changeTrust({ asset }))
      .setTimeout(TimeoutInfinite)
      .build();
    trust.sign(holder);
    await applied(client, trust);
    await applied(client, await payment(client, issuer, holder.publicKey(), '12.5', asset));

    const account = (await client.loadAccount(holder.publicKey(), asset))!;
    expect(balanceOf(account, asset)).toMatchObject({ balance: '12.5000000', assetCode: 'CNF', assetIssuer: issuer.publicKey() });
    expect(balanceOf(account, undefined)?.balance).toMatch(/^99\d\d\.\d{7}$/);
    expect(account).toMatchObject({ id: holder.publicKey(), subentryCount: 1, numSponsoring: 0, numSponsored: 0 });
    await expect(client.loadAccount(Keypair.random().publicKey(), asset)).resolves.toBeUndefined();

    // Several at once, in the order asked, each with its own trustline (or none), a missing one undefined.
    const missing = Keypair.random().publicKey();
    const [noTrust, holderAgain, nobody, issuerAccount] = await client.loadAccounts([issuer.publicKey(), holder.publicKey(), missing, issuer.publicKey()], asset);
    expect(holderAgain).toEqual(account);
    expect(nobody).toBeUndefined();
    expect(noTrust).toMatchObject({ id: issuer.publicKey() });
    expect(balanceOf(noTrust!, asset)).toBeUndefined();
    expect(issuerAccount).toEqual(noTrust);
  });

  it('submits, then finds the transaction by hash; a fee bump by its inner and its own hash, named by its own', async () => {
    const client = clientFor(api);
    const [source, feeSource] = [await funded(), await funded()];
    const inner = await payment(client, source, feeSource.publicKey(), '1');
    const bump = feeBumped(inner, feeSource);
    const outerHash = bump.hash().toString('hex');
    const answer = await applied(client, bump);

    expect(answer).toMatchObject({ hash: outerHash, feeCharged: 200n });
    for (const hash of [inner.hash().toString('hex'), outerHash]) {
      const lookup = await client.lookupTransaction(hash);
      expect(lookup).toEqual({ kind: 'found', transaction: { hash: outerHash, successful: true, ledger: answer.ledger, feeCharged: 200n } });
    }
  });

  it('shows a hash absent together with the ledgers the answer covers', async () => {
    const client = clientFor(api);
    const latest = (await client.latestLedger()).sequence;
    const lookup = await client.lookupTransaction('cd'.repeat(32));

    expect(lookup).toMatchObject({ kind: 'absent', oldestLedger: 1 });
    expect(lookup.kind === 'absent' && lookup.latestLedger).toBeGreaterThanOrEqual(latest);
    expect(await client.health()).toMatchObject({ oldestLedger: 1 });
  });

  it('refuses with the same result codes: the operation that failed, a used sequence number, a fee bump refused for its inner transaction', async () => {
    const client = clientFor(api);
    const [source, other] = [await funded(), await funded()];
    const tooMuch = await refusal(client, await payment(client, source, other.publicKey(), '50000'));
    expect([tooMuch.transactionCode, tooMuch.operationCodes, tooMuch.feeBump]).toEqual(['tx_failed', ['op_underfunded'], false]);

    const spent = await payment(client, source, other.publicKey(), '1');
    const reused = TransactionBuilder.fromXDR(spent.toXDR(), SANDBOX_NETWORK_PASSPHRASE) as Transaction;
    await applied(client, spent);
    const again = await payment(client, source, other.publicKey(), '2');
    // The same sequence number as the one just applied, different operations.
    const stale = new TransactionBuilder(new Account(source.publicKey(), (BigInt(reused.sequence) - 1n).toString()), { fee: '100', networkPassphrase: SANDBOX_NETWORK_PASSPHRASE })
      .addOperation(Operation.payment({ destination: other.publicKey(), asset: Asset.native(), amount: '3' }))
      .setTimeout(TimeoutInfinite)
      .build();
    stale.sign(source);
    expect((await refusal(client, stale)).transactionCode).toBe('tx_bad_seq');

    const bumped = await refusal(client, feeBumped(stale, other));
    expect([bumped.transactionCode, bumped.feeBump]).toEqual(['tx_bad_seq', false]);
    await applied(client, again);
  });

  it('names the fee a fee bump bidding below its inner transaction must reach', async () => {
    const client = clientFor(api);
    const [source, feeSource] = [await funded(), await funded()];
    const loaded = (await client.loadAccount(source.publicKey()))!;
    const inner = new TransactionBuilder(new Account(source.publicKey(), loaded.sequence), { fee: '500', networkPassphrase: SANDBOX_NETWORK_PASSPHRASE })
      .addOperation(Operation.payment({ destination: feeSource.publicKey(), asset: Asset.native(), amount: '1' }))
      .setTimeout(TimeoutInfinite)
      .build();
    inner.sign(source);
    // The SDK refuses to build such a fee bump: lower a legitimate one's fee in its XDR and sign it again.
    const envelope = feeBumped(inner, feeSource, '500').toEnvelope();
    envelope.feeBump().tx().fee(xdr.Int64.fromString('200'));
    envelope.feeBump().signatures([]);
    const underbid = new FeeBumpTransaction(envelope, SANDBOX_NETWORK_PASSPHRASE);
    underbid.sign(feeSource);
    const refused = await refusal(client, underbid);
    expect(refused).toMatchObject({ transactionCode: 'tx_insufficient_fee', feeBump: true });
    expect(refused.feeCharged).toBeGreaterThanOrEqual(1000n);
    await applied(client, feeBumped(inner, feeSource, String(refused.feeCharged! / 2n)));
  });

  it.each([
    ['apply-then-504', { mode: 'apply-then-504', next: 1 }],
    ['apply-then-reset', { mode: 'apply-then-reset', next: 1 }],
    ['apply-then-502', { mode: 'apply-then-502', next: 1 }],
  ] as const)('calls a submission answered %s unclear, and the hash then shows it applied', async (_name, plan) => {
    const client = clientFor(api);
    const [source, other] = [await funded(), await funded()];
    const tx = await payment(client, source, other.publicKey(), '1');
    ledger.faults.set(plan);
    await expect(client.submit(tx)).resolves.toEqual({ kind: 'unclear', reason: expect.any(String) });

    const lookup = await client.lookupTransaction(tx.hash().toString('hex'));
    expect(lookup).toMatchObject({ kind: 'found', transaction: { successful: true } });
  });

  it('calls TRY_AGAIN_LATER and a 503 unclear (resubmit the same bytes), and the hash stays absent', async () => {
    const client = clientFor(api);
    const [source, other] = [await funded(), await funded()];
    for (const mode of ['try-again-later', 'refuse-503'] as const) {
      const tx = await payment(client, source, other.publicKey(), '1');
      ledger.faults.set({ mode, next: 1 });
      await expect(client.submit(tx)).resolves.toEqual({ kind: 'unclear', reason: expect.any(String) });
      expect(await client.lookupTransaction(tx.hash().toString('hex'))).toMatchObject({ kind: 'absent' });
      await applied(client, tx);
    }
  });

  it('calls a ledger that refuses connections unavailable for reads, and a submission to it not delivered', async () => {
    const client = api === 'rpc' ? new RpcClient({ rpcUrl: 'http://127.0.0.1:9/rpc', networkPassphrase: SANDBOX_NETWORK_PASSPHRASE }) : new HorizonClient({ horizonUrl: 'http://127.0.0.1:9', networkPassphrase: SANDBOX_NETWORK_PASSPHRASE, retentionLedgers: 10 });
    const source = await funded();
    const tx = await payment(clientFor(api), source, Keypair.random().publicKey(), '1');
    await expect(client.submit(tx)).resolves.toEqual({ kind: 'not_delivered', error: expect.any(LedgerUnavailableError) });
    await expect(client.lookupTransaction('ab'.repeat(32))).rejects.toBeInstanceOf(LedgerUnavailableError);
    await expect(client.loadAccount(source.publicKey())).rejects.toBeInstanceOf(LedgerUnavailableError);
    await expect(client.health()).rejects.toBeInstanceOf(LedgerUnavailableError);
  });

  it('reads fee statistics and the latest ledger', async () => {
    const client = clientFor(api);
    const stats = await client.feeStats();
    expect(stats.lastLedgerBaseFee).toBe(100n);
    expect(Object.keys(stats.feeCharged)).toEqual(expect.arrayContaining(['p10', 'p50', 'p90', 'p99']));
    expect((await client.latestLedger()).sequence).toBeGreaterThanOrEqual(stats.lastLedger);
  });
});
