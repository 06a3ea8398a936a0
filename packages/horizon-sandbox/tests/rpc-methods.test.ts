import { Asset, Keypair, Operation, rpc } from '@stellar/stellar-sdk';
import { sponsoredAccount } from './reserve-helpers';
import { accountKey, errorCode, feeBump, hashOf, innerErrorCode, rawRpc } from './rpc-helpers';
import { buildTransaction, fundedAccount, startSandbox, type SandboxHarness } from './sandbox-harness';

const { GetTransactionStatus } = rpc.Api;

describe('Stellar RPC over the sandbox ledger', () => {
  let harness: SandboxHarness;
  beforeAll(async () => {
    harness = await startSandbox();
  });
  afterAll(() => harness.close());

  const payment = async (from: Keypair, to: Keypair, amount: string) =>
    buildTransaction(harness, from, [Operation.payment({ destination: to.publicKey(), asset: Asset.native(), amount })]);

  it('accepts a payment as PENDING and getTransaction then finds it in its ledger', async () => {
    const [payer, payee] = await Promise.all([fundedAccount(harness), fundedAccount(harness)]);
    const tx = await payment(payer, payee, '5');
    const sent = await harness.rpc.sendTransaction(tx);
    expect(sent).toMatchObject({ status: 'PENDING', hash: hashOf(tx) });
    expect(typeof sent.latestLedger).toBe('number');

    const found = await harness.rpc.getTransaction(sent.hash);
    expect(found.status).toBe(GetTransactionStatus.SUCCESS);
    if (found.status !== GetTransactionStatus.SUCCESS) return;
    expect(found.ledger).toBeGreaterThan(sent.latestLedger);
    expect(found.applicationOrder).toBe(1);
    expect(found.feeBump).toBe(false);
    expect(found.envelopeXdr.toXDR('base64')).toBe(tx.toEnvelope().toXDR('base64'));
    expect(found.resultXdr.result().switch().name).toBe('txSuccess');
    expect(found.resultMetaXdr.switch()).toBeDefined();
    expect(found.oldestLedger).toBe(1);
    expect(found.latestLedger).toBeGreaterThanOrEqual(found.ledger);
  });

  it('reports a transaction whose operation failed as FAILED, with its fee charged', async () => {
    const [payer, payee] = await Promise.all([fundedAccount(harness), fundedAccount(harness)]);
    const tx = await payment(payer, payee, '20000');
    expect((await harness.rpc.sendTransaction(tx)).status).toBe('PENDING');
    const found = await harness.rpc.getTransaction(hashOf(tx));
    expect(found.status).toBe(GetTransactionStatus.FAILED);
    if (found.status === GetTransactionStatus.FAILED) expect(found.resultXdr.result().switch().name).toBe('txFailed');
  });

  it('answers NOT_FOUND for a hash it never saw, with the ledger range', async () => {
    const missing = await harness.rpc.getTransaction('ab'.repeat(32));
    expect(missing).toMatchObject({ status: GetTransactionStatus.NOT_FOUND, oldestLedger: 1 });
    const raw = (await rawRpc(harness, JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'getTransaction', params: { hash: 'ab'.repeat(32) } })))
      .json as { result: Record<string, unknown> };
    expect(typeof raw.result.latestLedgerCloseTime).toBe('string');
    expect(typeof raw.result.oldestLedgerCloseTime).toBe('string');
  });

  it('refuses at once what core refuses: a bad signature (tx_bad_auth), a used sequence (tx_bad_seq)', async () => {
    const [payer, payee] = await Promise.all([fundedAccount(harness), fundedAccount(harness)]);
    const unsigned = await buildTransaction(harness, payer, [Operation.bumpSequence({ bumpTo: '0' })], { signers: [payee] });
    const badAuth = await harness.rpc.sendTransaction(unsigned);
    expect(badAuth.status).toBe('ERROR');
    expect(errorCode(badAuth)).toBe('txBadAuth');

    const tx = await payment(payer, payee, '1');
    await harness.rpc.sendTransaction(tx);
    const again = await harness.rpc.sendTransaction(tx);
    expect(again.status).toBe('ERROR');
    expect(errorCode(again)).toBe('txBadSeq');
    expect((await harness.rpc.getTransaction(hashOf(unsigned))).status).toBe(GetTransactionStatus.NOT_FOUND);
  });

  it('refuses an expired transaction with tx_too_late', async () => {
    const [payer, payee] = await Promise.all([fundedAccount(harness), fundedAccount(harness)]);
    const late = await buildTransaction(harness, payer, [Operation.payment({ destination: payee.publicKey(), asset: Asset.native(), amount: '1' })], {
      timebounds: { minTime: 0, maxTime: 1000 },
    });
    expect(errorCode(await harness.rpc.sendTransaction(late))).toBe('txTooLate');
  });

  it('finds a fee bump by its outer hash and by its inner hash; resubmitting it fails its inner sequence', async () => {
    const [payer, payee, sponsor] = await Promise.all([fundedAccount(harness), fundedAccount(harness), fundedAccount(harness)]);
    const inner = await payment(payer, payee, '2');
    const bump = feeBump(harness, sponsor, inner, '200');
    expect((await harness.rpc.sendTransaction(bump)).status).toBe('PENDING');

    for (const hash of [hashOf(bump), hashOf(inner)]) {
      const found = await harness.rpc.getTransaction(hash);
      expect(found.status).toBe(GetTransactionStatus.SUCCESS);
      if (found.status === GetTransactionStatus.SUCCESS) {
        expect(found.feeBump).toBe(true);
        expect(found.txHash).toBe(hash);
        expect(found.envelopeXdr.switch().name).toBe('envelopeTypeTxFeeBump');
      }
    }
    const again = await harness.rpc.sendTransaction(bump);
    expect(errorCode(again)).toBe('txFeeBumpInnerFailed');
    expect(innerErrorCode(again)).toBe('txBadSeq');
  });

  it('serves accounts and trustlines as core holds them: rpc.Server#getAccount, getAccountEntry, getTrustline', async () => {
    const [issuer, holder] = await Promise.all([fundedAccount(harness), fundedAccount(harness)]);
    const usd = new Asset('USD', issuer.publicKey());
    await harness.horizon.submitTransaction(await buildTransaction(harness, holder, [Operation.changeTrust({ asset: usd, limit: '1000' })]));
    await harness.horizon.submitTransaction(
      await buildTransaction(harness, issuer, [Operation.payment({ destination: holder.publicKey(), asset: usd, amount: '12.5' })]),
    );
    const loaded = await harness.horizon.loadAccount(holder.publicKey());

    const account = await harness.rpc.getAccount(holder.publicKey());
    expect(account.sequenceNumber()).toBe(loaded.sequence);
    const entry = await harness.rpc.getAccountEntry(holder.publicKey());
    // 10000 XLM less the one fee it paid
    expect(entry.balance().toString()).toBe('99999999900');
    expect(entry.numSubEntries()).toBe(1);
    expect([...entry.thresholds()]).toEqual([1, 0, 0, 0]);
    // a transaction consumed a sequence number: core keeps seqLedger/seqTime in ext v3, under v1 and v2
    const v3 = entry.ext().v1().ext().v2().ext().v3();
    expect(v3.seqLedger()).toBe(Number(loaded.sequence_ledger));
    const line = await harness.rpc.getTrustline(holder.publicKey(), usd);
    expect(line.balance().toString()).toBe('125000000');
    expect(line.limit().toString()).toBe('10000000000');
    await expect(harness.rpc.getTrustline(holder.publicKey(), new Asset('EUR', issuer.publicKey()))).rejects.toThrow(/not found/);
    await expect(harness.rpc.getAccount(Keypair.random().publicKey())).rejects.toThrow(/Account not found/);
  });

  it('writes the sponsorship counts in the account entry ext v2', async () => {
    const sponsor = await fundedAccount(harness);
    const sponsoredId = (await sponsoredAccount(harness, sponsor)).publicKey();
    const [sponsorEntry, sponsoredEntry] = await Promise.all([
      harness.rpc.getAccountEntry(sponsor.publicKey()),
      harness.rpc.getAccountEntry(sponsoredId),
    ]);
    expect(sponsorEntry.ext().v1().ext().v2().numSponsoring()).toBe(2);
    expect(sponsoredEntry.ext().v1().ext().v2().numSponsored()).toBe(2);
    expect(sponsoredEntry.balance().toString()).toBe('0');
  });

  it('answers getLedgerEntries in the order asked, leaving out what does not exist', async () => {
    const [a, b] = await Promise.all([fundedAccount(harness), fundedAccount(harness)]);
    const answer = await harness.rpc.getLedgerEntries(
      accountKey(b.publicKey()),
      accountKey(Keypair.random().publicKey()),
      accountKey(a.publicKey()),
    );
    expect(answer.entries.map((entry) => entry.key.account().accountId().ed25519().toString('hex'))).toEqual(
      [b, a].map((keypair) => keypair.rawPublicKey().toString('hex')),
    );
    expect(answer.entries[0]?.lastModifiedLedgerSeq).toBeGreaterThan(1);
    expect(answer.latestLedger).toBeGreaterThanOrEqual(answer.entries[0]?.lastModifiedLedgerSeq ?? 0);
  });

  it('answers getLatestLedger, getHealth, getNetwork and getVersionInfo from the same ledger state', async () => {
    const latest = await harness.rpc.getLatestLedger();
    const ledgers = await harness.horizon.ledgers().order('desc').limit(1).call();
    expect(latest.sequence).toBe(ledgers.records[0]?.sequence);
    expect(latest.id).toBe(ledgers.records[0]?.hash);
    expect(latest.headerXdr.ledgerSeq()).toBe(latest.sequence);
    expect(latest.closeTime).toBe(String(Date.parse(ledgers.records[0]?.closed_at ?? '') / 1000));
    expect(await harness.rpc.getHealth()).toMatchObject({ status: 'healthy', latestLedger: latest.sequence, oldestLedger: 1, ledgerRetentionWindow: 120960 });
    expect(await harness.rpc.getNetwork()).toMatchObject({ passphrase: harness.passphrase, protocolVersion: 23 });
    expect((await harness.rpc.getVersionInfo()).protocolVersion).toBe(23);
  });

  it('describes the fees charged per operation in getFeeStats, as /fee_stats does', async () => {
    const stats = await harness.rpc.getFeeStats();
    const horizon = await harness.horizon.feeStats();
    expect(stats.inclusionFee.p50).toBe(horizon.fee_charged.p50);
    expect(stats.inclusionFee.max).toBe(horizon.fee_charged.max);
    expect(Number(stats.inclusionFee.transactionCount)).toBeGreaterThan(0);
    expect(stats.sorobanInclusionFee.transactionCount).toBe('0');
    expect(stats.latestLedger).toBe(Number(horizon.last_ledger));
  });
});
