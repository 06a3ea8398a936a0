import { Account, Asset, Horizon, Keypair, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { channelKeys } from '../../src/ledger/channel-accounts';
import { bearer, createUser } from '../helpers/factories';
import { fundedUser, ledgerBalance } from '../helpers/ledger-fixtures';
import { withSandboxes } from '../helpers/with-sandboxes';

// Issue 14: wallets and channels hold no XLM of the service's. Their reserves are sponsored by the
// distribution account and every fee is paid by a fee bump from it, so a scripted signup has nothing
// to withdraw and no channel ever needs topping up. Everything is read back from Horizon.

const { ledger, app, startApp } = withSandboxes({ app: { env: { LEDGER_CHANNELS: '2' } } });
let horizon: Horizon.Server;

interface RawAccount {
  balances: { asset_type: string; balance: string; asset_code?: string; sponsor?: string }[];
  subentry_count: number;
  num_sponsoring: number;
  num_sponsored: number;
  sponsor?: string;
}

async function rawAccount(publicKey: string): Promise<RawAccount | undefined> {
  const res = await fetch(`${ledger.url}/accounts/${publicKey}`);
  if (res.status === 404) return undefined;
  return (await res.json()) as RawAccount;
}

const nativeOf = (account: RawAccount | undefined) => account?.balances.find((b) => b.asset_type === 'native')?.balance;
const BASE_RESERVE = 5_000_000n;

async function distributionKey(): Promise<string> {
  return (await app.container.ledgerModule.accounts.keys()).distribution.publicKey();
}

beforeAll(() => {
  horizon = new Horizon.Server(ledger.url, { allowHttp: true });
});

describe('a new wallet', () => {
  it('holds 0 XLM, its account and trustline reserves sponsored by the distribution account', async () => {
    const user = await createUser(app);
    const distribution = await distributionKey();
    const account = await rawAccount(user.ledgerPublicKey);
    expect(nativeOf(account)).toBe('0.0000000');
    expect(account).toMatchObject({ sponsor: distribution, num_sponsored: 3, num_sponsoring: 0, subentry_count: 1 });
    expect(account?.balances.find((b) => b.asset_code === 'WLT')).toMatchObject({ balance: '0.0000000', sponsor: distribution });
  });

  it('receives and sends the token with 0 XLM: the service pays the fee through a fee bump', async () => {
    const alice = await fundedUser(app, 50);
    const bob = await createUser(app);
    const transfer = await app.http.post('/api/ledger/transfer').set(bearer(alice.token)).send({ receiverPublicKey: bob.ledgerPublicKey, amount: 20 });
    expect(transfer.status).toBe(200);
    expect(await ledgerBalance(ledger.url, alice.ledgerPublicKey)).toBe('30.0000000');
    expect(await ledgerBalance(ledger.url, bob.ledgerPublicKey)).toBe('20.0000000');
    expect(nativeOf(await rawAccount(alice.ledgerPublicKey))).toBe('0.0000000');

    // The record's hash is the inner transaction's: Horizon finds the fee bump that carried it.
    const record = await horizon.transactions().transaction(transfer.body.result.hash).call();
    expect(record.fee_account).toBe(await distributionKey());
    expect(record.source_account).toBe(alice.ledgerPublicKey);
    expect(record.inner_transaction?.hash).toBe(transfer.body.result.hash);
    expect(record.inner_transaction?.max_fee).toBe('0');
  });

  it('merged away by its owner, gives its reserves back to the sponsor', async () => {
    const user = await createUser(app);
    const distribution = await distributionKey();
    const keys = await app.container.wallets.keysOf(user.userId);
    const wallet = Keypair.fromSecret(keys!.ledgerSecretKey);
    const before = await rawAccount(distribution);
    const asset = new Asset('WLT', (await app.container.ledgerModule.accounts.keys()).issuer.publicKey());

    // The owner (who holds the secret key) drops the trustline and merges the account into an
    // account of theirs; with 0 XLM they need someone to pay the fee: here their own funded account.
    const payer = Keypair.random();
    await fetch(`${ledger.url}/friendbot?addr=${payer.publicKey()}`);
    const loaded = await horizon.loadAccount(wallet.publicKey());
    const inner = new TransactionBuilder(new Account(wallet.publicKey(), loaded.sequence), { fee: '0', networkPassphrase: app.container.ledgerModule.client.networkPassphrase })
      .addOperation(Operation.changeTrust({ asset, limit: '0' }))
      .addOperation(Operation.accountMerge({ destination: payer.publicKey() }))
      .setTimeout(60)
      .build();
    inner.sign(wallet);
    const bump = TransactionBuilder.buildFeeBumpTransaction(payer, '100', inner, app.container.ledgerModule.client.networkPassphrase);
    bump.sign(payer);
    await horizon.submitTransaction(bump);

    expect(await rawAccount(wallet.publicKey())).toBeUndefined();
    const after = await rawAccount(distribution);
    expect(after!.num_sponsoring).toBe(before!.num_sponsoring - 3);
    // Its XLM did not move (the owner's account paid the fee); its minimum balance fell by three reserves.
    expect(nativeOf(after)).toBe(nativeOf(before));
    const minimum = (a: RawAccount) => BigInt(2 + a.subentry_count + a.num_sponsoring - a.num_sponsored) * BASE_RESERVE;
    expect(minimum(before!) - minimum(after!)).toBe(3n * BASE_RESERVE);
  });
});

describe('channel accounts', () => {
  it('hold 0 XLM, sponsored, and carry the distribution account\'s batches', async () => {
    const distribution = (await app.container.ledgerModule.accounts.keys()).distribution;
    await app.container.ledgerModule.bootstrap.ready();
    const channels = channelKeys(distribution, 2);
    for (const channel of channels) {
      const account = await rawAccount(channel.publicKey());
      expect(nativeOf(account)).toBe('0.0000000');
      expect(account).toMatchObject({ sponsor: distribution.publicKey(), num_sponsored: 2 });
    }
    // 6 mints at once ride in channel-sourced transactions: the channels still hold 0 XLM after.
    const users = await Promise.all(Array.from({ length: 6 }, () => fundedUser(app, 5)));
    for (const user of users) expect(await ledgerBalance(ledger.url, user.ledgerPublicKey)).toBe('5.0000000');
    const sources = new Set((await app.container.ledgerModule.repository.allEnvelopes()).map((e) => e.sourceAccount));
    expect(channels.some((c) => sources.has(c.publicKey()))).toBe(true);
    for (const channel of channels) expect(nativeOf(await rawAccount(channel.publicKey()))).toBe('0.0000000');
  });

  it('removed by lowering LEDGER_CHANNELS, are merged back and return their reserves', async () => {
    const distribution = (await app.container.ledgerModule.accounts.keys()).distribution;
    await app.container.ledgerModule.bootstrap.ready();
    const before = await rawAccount(distribution.publicKey());
    const { removed, busy } = await app.container.ledgerModule.bootstrap.removeChannelsBeyond(1);
    const second = channelKeys(distribution, 2)[1]!.publicKey();
    expect(busy).toEqual([]);
    expect(removed).toEqual([second]);
    expect(await rawAccount(second)).toBeUndefined();
    expect((await rawAccount(distribution.publicKey()))!.num_sponsoring).toBe(before!.num_sponsoring - 2);
    // Raising the count again: the next start creates it anew (sponsored, 0 XLM).
    await startApp({}, { reset: false });
    await app.container.ledgerModule.bootstrap.ready();
    expect(nativeOf(await rawAccount(second))).toBe('0.0000000');
  });
});

describe('the distribution account\'s runway', () => {
  it('is in the metrics, and /readyz warns when its XLM covers fewer than MIN_SIGNUPS_LEFT wallets', async () => {
    // friendbot gives 10,000 XLM: about 6,600 wallets at 1.5 XLM each, fewer than 1,000,000
    await startApp({ MIN_SIGNUPS_LEFT: '1000000' });
    await createUser(app);
    const ready = await app.http.get('/readyz').expect(200);
    expect(ready.body).toEqual({ status: 'ready', warnings: [expect.stringMatching(/MIN_SIGNUPS_LEFT/)] });
    const metrics = (await app.http.get('/metrics').expect(200)).text;
    expect(metrics).toMatch(/^distribution_low_funds 1$/m);
    expect(metrics).toMatch(/^distribution_reserves_sponsored \d+$/m);
    expect(metrics).toMatch(/^distribution_xlm_stroops \d+$/m);
    expect(metrics).toMatch(/^ledger_fees_paid_stroops_total [1-9]\d*$/m);
    // Recomputed from Horizon's own account resource, not from the treasury's figures: the minimum
    // balance is (2 + subentries + sponsoring - sponsored) base reserves; a wallet costs 3 sponsored
    // reserves and 5 operations' fees at the base fee.
    const reading = (await app.container.treasury.read())!;
    const raw = (await rawAccount(await distributionKey()))!;
    const xlm = BigInt(nativeOf(raw)!.replace('.', ''));
    const minimum = BigInt(2 + raw.subentry_count + raw.num_sponsoring - raw.num_sponsored) * BASE_RESERVE;
    expect(raw.num_sponsoring).toBeGreaterThanOrEqual(3 + 2 * 2); // a wallet, two channels
    expect(reading.reservesSponsored).toBe(raw.num_sponsoring);
    expect(reading.spendableXlmStroops).toBe(xlm - minimum);
    expect(reading.signupsLeft).toBe((xlm - minimum) / (3n * BASE_RESERVE + 500n));
  });

  it('has no warning while the XLM covers MIN_SIGNUPS_LEFT wallets', async () => {
    await createUser(app);
    await app.http.get('/readyz').expect(200, { status: 'ready' });
    expect((await app.http.get('/metrics')).text).toMatch(/^distribution_low_funds 0$/m);
  });
});
