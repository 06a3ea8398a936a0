import { Asset, Keypair, NotFoundError, Operation, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import {
  balancesOf,
  buildTransaction,
  fundedAccount,
  startSandbox,
  submitExpectingFailure,
  type SandboxHarness,
} from './sandbox-harness';

let harness: SandboxHarness;

beforeAll(async () => {
  harness = await startSandbox();
});

afterAll(() => harness.close());

const native = Asset.native();

describe('multi-operation transactions', () => {
  it('applies all or nothing: a failing second payment undoes the first, but the fee and sequence are spent', async () => {
    const [payer, payee] = await Promise.all([fundedAccount(harness), fundedAccount(harness)]);
    const before = await harness.horizon.loadAccount(payer.publicKey());
    const tx = await buildTransaction(harness, payer, [
      Operation.payment({ destination: payee.publicKey(), asset: native, amount: '100' }),
      Operation.payment({ destination: payee.publicKey(), asset: native, amount: '1000000' }),
    ]);

    const failure = await submitExpectingFailure(harness, tx);

    expect(failure.data.extras.result_codes).toEqual({
      transaction: 'tx_failed',
      operations: ['op_success', 'op_underfunded'],
    });
    expect(xdr.TransactionResult.fromXDR(failure.data.extras.result_xdr, 'base64').feeCharged().toString()).toBe('200');
    const after = await harness.horizon.loadAccount(payer.publicKey());
    expect(after.sequence).toBe((BigInt(before.sequence) + 1n).toString());
    expect(await balancesOf(harness, payer.publicKey())).toEqual({ native: '9999.9999800' });
    expect(await balancesOf(harness, payee.publicKey())).toEqual({ native: '10000.0000000' });
    // a transaction that failed in the ledger is still history, marked unsuccessful
    const record = await harness.horizon.transactions().transaction(tx.hash().toString('hex')).call();
    expect(record.successful).toBe(false);
    expect(record.fee_charged).toBe('200');
  });

  it('creates an account and its trustline in one transaction signed by both accounts', async () => {
    const [funder, issuer] = await Promise.all([fundedAccount(harness), fundedAccount(harness)]);
    const newcomer = Keypair.random();
    const asset = new Asset('WLT', issuer.publicKey());
    const tx = await buildTransaction(
      harness,
      funder,
      [
        Operation.createAccount({ destination: newcomer.publicKey(), startingBalance: '2.5' }),
        Operation.changeTrust({ asset, source: newcomer.publicKey() }),
      ],
      { signers: [funder, newcomer] },
    );

    const response = await harness.horizon.submitTransaction(tx);

    expect(response.successful).toBe(true);
    const account = await harness.horizon.loadAccount(newcomer.publicKey());
    expect(account.subentry_count).toBe(1);
    expect(account.balances).toEqual([
      expect.objectContaining({
        asset_type: 'credit_alphanum4',
        asset_code: 'WLT',
        asset_issuer: issuer.publicKey(),
        balance: '0.0000000',
        limit: '922337203685.4775807',
        is_authorized: true,
      }),
      { asset_type: 'native', balance: '2.5000000', buying_liabilities: '0.0000000', selling_liabilities: '0.0000000' },
    ]);
    expect(BigInt(account.sequence)).toBe(BigInt(response.ledger) << 32n);
  });

  it('refuses the same pair when the new account did not sign', async () => {
    const [funder, issuer] = await Promise.all([fundedAccount(harness), fundedAccount(harness)]);
    const newcomer = Keypair.random();
    const tx = await buildTransaction(harness, funder, [
      Operation.createAccount({ destination: newcomer.publicKey(), startingBalance: '2.5' }),
      Operation.changeTrust({ asset: new Asset('WLT', issuer.publicKey()), source: newcomer.publicKey() }),
    ]);

    const failure = await submitExpectingFailure(harness, tx);

    expect(failure.data.extras.result_codes).toEqual({ transaction: 'tx_failed', operations: ['op_success', 'op_bad_auth'] });
    await expect(harness.horizon.loadAccount(newcomer.publicKey())).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('issued assets', () => {
  it('lets the issuer mint by paying its own asset, and burns what is paid back to it', async () => {
    const [issuer, holder] = await Promise.all([fundedAccount(harness), fundedAccount(harness)]);
    const asset = new Asset('WLT', issuer.publicKey());
    await harness.horizon.submitTransaction(await buildTransaction(harness, holder, [Operation.changeTrust({ asset })]));

    await harness.horizon.submitTransaction(
      await buildTransaction(harness, issuer, [Operation.payment({ destination: holder.publicKey(), asset, amount: '500' })]),
    );
    expect((await balancesOf(harness, holder.publicKey()))[`WLT:${issuer.publicKey()}`]).toBe('500.0000000');

    await harness.horizon.submitTransaction(
      await buildTransaction(harness, holder, [Operation.payment({ destination: issuer.publicKey(), asset, amount: '120.5' })]),
    );
    expect((await balancesOf(harness, holder.publicKey()))[`WLT:${issuer.publicKey()}`]).toBe('379.5000000');
    // the issuer never holds its own asset
    expect(Object.keys(await balancesOf(harness, issuer.publicKey()))).toEqual(['native']);
  });

  it('moves an asset between two holders exactly, to the stroop', async () => {
    const [issuer, sender, receiver] = await Promise.all([
      fundedAccount(harness),
      fundedAccount(harness),
      fundedAccount(harness),
    ]);
    const asset = new Asset('LONGCODE12', issuer.publicKey());
    for (const holder of [sender, receiver]) {
      await harness.horizon.submitTransaction(await buildTransaction(harness, holder, [Operation.changeTrust({ asset })]));
    }
    await harness.horizon.submitTransaction(
      await buildTransaction(harness, issuer, [Operation.payment({ destination: sender.publicKey(), asset, amount: '0.3' })]),
    );
    await harness.horizon.submitTransaction(
      await buildTransaction(harness, sender, [
        Operation.payment({ destination: receiver.publicKey(), asset, amount: '0.1' }),
        Operation.payment({ destination: receiver.publicKey(), asset, amount: '0.2' }),
      ]),
    );
    const key = `LONGCODE12:${issuer.publicKey()}`;
    expect((await balancesOf(harness, sender.publicKey()))[key]).toBe('0.0000000');
    expect((await balancesOf(harness, receiver.publicKey()))[key]).toBe('0.3000000');
    const line = (await harness.horizon.loadAccount(receiver.publicKey())).balances[0];
    expect(line).toMatchObject({ asset_type: 'credit_alphanum12' });
  });

  it('removes an empty trustline and gives its reserve back', async () => {
    const [issuer, holder] = await Promise.all([fundedAccount(harness), fundedAccount(harness)]);
    const asset = new Asset('TMP', issuer.publicKey());
    await harness.horizon.submitTransaction(await buildTransaction(harness, holder, [Operation.changeTrust({ asset })]));
    expect((await harness.horizon.loadAccount(holder.publicKey())).subentry_count).toBe(1);

    await harness.horizon.submitTransaction(await buildTransaction(harness, holder, [Operation.changeTrust({ asset, limit: '0' })]));

    const account = await harness.horizon.loadAccount(holder.publicKey());
    expect(account.subentry_count).toBe(0);
    expect(account.balances).toHaveLength(1);
  });
});

describe('account options and signing', () => {
  it('locks an issuer whose master weight is set to 0: it can sign nothing afterwards', async () => {
    const issuer = await fundedAccount(harness);
    const holder = await fundedAccount(harness);
    await harness.horizon.submitTransaction(
      await buildTransaction(harness, issuer, [Operation.setOptions({ masterWeight: 0, homeDomain: 'wallet.example' })]),
    );
    const account = await harness.horizon.loadAccount(issuer.publicKey());
    expect(account.signers).toEqual([{ key: issuer.publicKey(), weight: 0, type: 'ed25519_public_key' }]);
    expect(account.home_domain).toBe('wallet.example');

    const tx = await buildTransaction(harness, issuer, [
      Operation.payment({ destination: holder.publicKey(), asset: native, amount: '1' }),
    ]);
    const failure = await submitExpectingFailure(harness, tx);
    expect(failure.data.extras.result_codes.transaction).toBe('tx_bad_auth');
  });

  it('accepts an added signer, counts weights against thresholds, and needs the high threshold for set_options', async () => {
    const owner = await fundedAccount(harness);
    const cosigner = Keypair.random();
    await harness.horizon.submitTransaction(
      await buildTransaction(harness, owner, [
        Operation.setOptions({ signer: { ed25519PublicKey: cosigner.publicKey(), weight: 1 } }),
        Operation.setOptions({ lowThreshold: 1, medThreshold: 1, highThreshold: 2 }),
      ]),
    );
    const account = await harness.horizon.loadAccount(owner.publicKey());
    expect(account.subentry_count).toBe(1);
    expect(account.thresholds).toEqual({ low_threshold: 1, med_threshold: 1, high_threshold: 2 });

    // the cosigner alone meets the medium threshold of a payment
    const payee = await fundedAccount(harness);
    const payment = await buildTransaction(
      harness,
      owner,
      [Operation.payment({ destination: payee.publicKey(), asset: native, amount: '5' })],
      { signers: [cosigner] },
    );
    await expect(harness.horizon.submitTransaction(payment)).resolves.toMatchObject({ successful: true });

    // one signer (weight 1) is not enough for a high-threshold set_options; both are
    const alone = await buildTransaction(harness, owner, [Operation.setOptions({ highThreshold: 1 })]);
    expect((await submitExpectingFailure(harness, alone)).data.extras.result_codes.operations).toEqual(['op_bad_auth']);
    const together = await buildTransaction(harness, owner, [Operation.setOptions({ highThreshold: 1 })], {
      signers: [owner, cosigner],
    });
    await expect(harness.horizon.submitTransaction(together)).resolves.toMatchObject({ successful: true });
  });
});

describe('fee bumps', () => {
  it('lets another account pay the fee of an already signed transaction', async () => {
    const [sender, sponsor, receiver] = await Promise.all([
      fundedAccount(harness),
      fundedAccount(harness),
      fundedAccount(harness),
    ]);
    const inner = await buildTransaction(harness, sender, [
      Operation.payment({ destination: receiver.publicKey(), asset: native, amount: '10' }),
    ]);
    const bump = TransactionBuilder.buildFeeBumpTransaction(sponsor, '200', inner, harness.passphrase);
    bump.sign(sponsor);

    const response = await harness.horizon.submitTransaction(bump);

    expect(response.successful).toBe(true);
    expect(await balancesOf(harness, sender.publicKey())).toEqual({ native: '9990.0000000' });
    expect(await balancesOf(harness, sponsor.publicKey())).toEqual({ native: '9999.9999800' });
    const result = xdr.TransactionResult.fromXDR(response.result_xdr, 'base64');
    expect(result.result().switch().name).toBe('txFeeBumpInnerSuccess');
    const record = await harness.horizon.transactions().transaction(inner.hash().toString('hex')).call();
    expect(record.fee_account).toBe(sponsor.publicKey());
    expect(record.inner_transaction?.hash).toBe(inner.hash().toString('hex'));
  });
});

describe('sequence numbers', () => {
  it('consumes the sequence of a transaction that failed in the ledger, so its replay is tx_bad_seq', async () => {
    const payer = await fundedAccount(harness);
    const tx = await buildTransaction(harness, payer, [
      Operation.payment({ destination: Keypair.random().publicKey(), asset: native, amount: '1' }),
    ]);
    expect((await submitExpectingFailure(harness, tx)).data.extras.result_codes.transaction).toBe('tx_failed');
    const retry = await buildTransaction(harness, payer, [Operation.setOptions({ homeDomain: 'x.example' })], {
      sequence: (BigInt(tx.sequence) - 1n).toString(),
    });
    expect((await submitExpectingFailure(harness, retry)).data.extras.result_codes.transaction).toBe('tx_bad_seq');
  });

  it('answers a resubmitted transaction with the result it already has instead of applying it twice', async () => {
    const [payer, payee] = await Promise.all([fundedAccount(harness), fundedAccount(harness)]);
    const tx = await buildTransaction(harness, payer, [
      Operation.payment({ destination: payee.publicKey(), asset: native, amount: '7' }),
    ]);
    const first = await harness.horizon.submitTransaction(tx);
    const second = await harness.horizon.submitTransaction(tx);
    expect(second.hash).toBe(first.hash);
    expect(second.ledger).toBe(first.ledger);
    expect(await balancesOf(harness, payee.publicKey())).toEqual({ native: '10007.0000000' });
  });
});
