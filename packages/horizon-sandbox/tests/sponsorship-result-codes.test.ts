import { Asset, Keypair, Operation, type xdr } from '@stellar/stellar-sdk';
import {
  BASE_RESERVE,
  decodedResult,
  expectOperationCode,
  expectRefused,
  feeBumped,
  nativeStroops,
  operationResultName,
  spendableStroops,
  sponsored,
  sponsoredAccount,
  sponsoredCreation,
  trustlineOf,
} from './reserve-helpers';
import {
  buildTransaction,
  fundedAccount,
  startSandbox,
  submitExpectingFailure,
  type SandboxHarness,
} from './sandbox-harness';

// Sponsored reserves (CAP-33) as stellar-core applies them: one real signed envelope per result code,
// checked in Horizon's result_codes and in the result_xdr the SDK decodes, and every reserve that
// moves checked in exact stroops on the account resources.

let harness: SandboxHarness;
let sponsor: Keypair;
let issuer: Keypair;
let stranger: Keypair;

beforeAll(async () => {
  harness = await startSandbox();
  [sponsor, issuer, stranger] = await Promise.all([fundedAccount(harness), fundedAccount(harness), fundedAccount(harness)]);
});

afterAll(() => harness.close());

const load = (keypair: Keypair) => harness.horizon.loadAccount(keypair.publicKey());
const token = () => new Asset('SPN', issuer.publicKey());
const trustToken = (source?: string) => Operation.changeTrust({ asset: token(), ...(source ? { source } : {}) });
const pay = (destination: Keypair, amount: string, asset = Asset.native()) =>
  Operation.payment({ destination: destination.publicKey(), asset, amount });

describe('an account whose reserves a sponsor pays', () => {
  // one account followed through its life: each step builds on the one before
  let account: Keypair;

  it('is created with 0 XLM, the sponsor taking on its two base reserves', async () => {
    const sponsorBefore = await load(sponsor);
    account = Keypair.random();
    const created = await harness.horizon.submitTransaction(await sponsoredCreation(harness, sponsor, account));
    expect(decodedResult(created.result_xdr).result().switch().name).toBe('txSuccess');
    expect([0, 1, 2].map((index) => operationResultName(created.result_xdr, index))).toEqual([
      'beginSponsoringFutureReservesSuccess',
      'createAccountSuccess',
      'endSponsoringFutureReservesSuccess',
    ]);

    const fresh = await load(account);
    expect(fresh.balances).toEqual([expect.objectContaining({ asset_type: 'native', balance: '0.0000000' })]);
    expect(fresh).toMatchObject({ num_sponsored: 2, num_sponsoring: 0, sponsor: sponsor.publicKey(), subentry_count: 0 });
    expect(spendableStroops(fresh)).toBe(0n);

    const sponsorAfter = await load(sponsor);
    expect(sponsorAfter.num_sponsoring).toBe(sponsorBefore.num_sponsoring + 2);
    expect(sponsorAfter.sponsor).toBeUndefined();
    // the three operations' fee, and two base reserves now locked for the new account
    expect(nativeStroops(sponsorAfter)).toBe(nativeStroops(sponsorBefore) - 300n);
    expect(spendableStroops(sponsorAfter)).toBe(spendableStroops(sponsorBefore) - 300n - 2n * BASE_RESERVE);
  });

  it('cannot pay a fee of its own (tx_insufficient_balance) nor send XLM in a fee bump (op_underfunded)', async () => {
    const own = await buildTransaction(harness, account, [pay(stranger, '0.0000001')]);
    const refused = await submitExpectingFailure(harness, own);
    expect(refused.data.extras.result_codes).toEqual({ transaction: 'tx_insufficient_balance' });

    const inner = await buildTransaction(harness, account, [pay(stranger, '0.0000001')]);
    const failure = await submitExpectingFailure(harness, feeBumped(harness, stranger, inner));
    expect(failure.data.extras.result_codes).toEqual({
      transaction: 'tx_fee_bump_inner_failed',
      inner_transaction: { transaction: 'tx_failed', operations: ['op_underfunded'] },
    });
    expect(operationResultName(failure.data.extras.result_xdr, 0)).toBe('paymentUnderfunded');
    expect(nativeStroops(await load(account))).toBe(0n);
  });

  it('gets a trustline whose base reserve the sponsor pays, needing no XLM itself', async () => {
    const sponsorBefore = await load(sponsor);
    const tx = await buildTransaction(
      harness,
      sponsor,
      sponsored(sponsor.publicKey(), account.publicKey(), [trustToken(account.publicKey())]),
      { signers: [sponsor, account] },
    );
    await harness.horizon.submitTransaction(tx);

    const holder = await load(account);
    expect(holder).toMatchObject({ subentry_count: 1, num_sponsored: 3, num_sponsoring: 0 });
    expect(trustlineOf(holder, 'SPN', issuer.publicKey())).toMatchObject({ balance: '0.0000000', sponsor: sponsor.publicKey() });
    expect(spendableStroops(holder)).toBe(0n);
    const sponsorAfter = await load(sponsor);
    expect(sponsorAfter.num_sponsoring).toBe(sponsorBefore.num_sponsoring + 1);
    expect(spendableStroops(sponsorAfter)).toBe(spendableStroops(sponsorBefore) - 300n - BASE_RESERVE);
  });

  it('receives the credit asset and sends it on, its fees paid in a fee bump by another account', async () => {
    await harness.horizon.submitTransaction(await buildTransaction(harness, issuer, [pay(account, '25', token())]));
    const strangerBefore = await load(stranger);

    const inner = await buildTransaction(harness, account, [pay(issuer, '10', token())]);
    const bumped = await harness.horizon.submitTransaction(feeBumped(harness, stranger, inner));
    expect(decodedResult(bumped.result_xdr).result().switch().name).toBe('txFeeBumpInnerSuccess');

    const holder = await load(account);
    expect(trustlineOf(holder, 'SPN', issuer.publicKey())?.balance).toBe('15.0000000');
    expect(nativeStroops(holder)).toBe(0n);
    // one operation plus the fee bump itself
    expect(nativeStroops(await load(stranger))).toBe(nativeStroops(strangerBefore) - 200n);
  });

  it('removing the sponsored trustline gives the sponsor back exactly one base reserve', async () => {
    const sponsorBefore = await load(sponsor);
    const inner = await buildTransaction(harness, account, [
      pay(issuer, '15', token()),
      Operation.changeTrust({ asset: token(), limit: '0' }),
    ]);
    await harness.horizon.submitTransaction(feeBumped(harness, stranger, inner));

    const holder = await load(account);
    expect(trustlineOf(holder, 'SPN', issuer.publicKey())).toBeUndefined();
    expect(holder).toMatchObject({ subentry_count: 0, num_sponsored: 2 });
    const sponsorAfter = await load(sponsor);
    expect(sponsorAfter.num_sponsoring).toBe(sponsorBefore.num_sponsoring - 1);
    // the stranger paid the fee: the sponsor's balance is untouched, only its reserve shrank
    expect(nativeStroops(sponsorAfter)).toBe(nativeStroops(sponsorBefore));
    expect(spendableStroops(sponsorAfter) - spendableStroops(sponsorBefore)).toBe(5_000_000n);
  });
});

describe('begin_sponsoring_future_reserves and end_sponsoring_future_reserves', () => {
  it('rejects an account sponsoring itself with op_malformed, before the ledger', async () => {
    const before = await load(sponsor);
    const tx = await buildTransaction(harness, sponsor, [
      Operation.beginSponsoringFutureReserves({ sponsoredId: sponsor.publicKey() }),
    ]);
    await expectRefused(harness, tx, ['op_malformed'], 'beginSponsoringFutureReservesMalformed');
    expect((await load(sponsor)).sequence).toBe(before.sequence);
  });

  it('reports op_already_sponsored for a second sponsor of the same account', async () => {
    const target = Keypair.random().publicKey();
    const tx = await buildTransaction(
      harness,
      sponsor,
      [
        Operation.beginSponsoringFutureReserves({ sponsoredId: target }),
        Operation.beginSponsoringFutureReserves({ sponsoredId: target, source: stranger.publicKey() }),
      ],
      { signers: [sponsor, stranger] },
    );
    await expectRefused(harness, tx, ['op_success', 'op_already_sponsored'], 'beginSponsoringFutureReservesAlreadySponsored');
  });

  it('reports op_recursive when a sponsored account tries to sponsor', async () => {
    const tx = await buildTransaction(
      harness,
      sponsor,
      [
        Operation.beginSponsoringFutureReserves({ sponsoredId: stranger.publicKey() }),
        Operation.beginSponsoringFutureReserves({ sponsoredId: Keypair.random().publicKey(), source: stranger.publicKey() }),
      ],
      { signers: [sponsor, stranger] },
    );
    await expectRefused(harness, tx, ['op_success', 'op_recursive'], 'beginSponsoringFutureReservesRecursive');
  });

  it('reports op_recursive when a sponsor is to be sponsored', async () => {
    const tx = await buildTransaction(
      harness,
      sponsor,
      [
        Operation.beginSponsoringFutureReserves({ sponsoredId: Keypair.random().publicKey() }),
        Operation.beginSponsoringFutureReserves({ sponsoredId: sponsor.publicKey(), source: stranger.publicKey() }),
      ],
      { signers: [sponsor, stranger] },
    );
    await expectRefused(harness, tx, ['op_success', 'op_recursive'], 'beginSponsoringFutureReservesRecursive');
  });

  it('reports op_not_sponsored for an end without a begin', async () => {
    const tx = await buildTransaction(harness, sponsor, [Operation.endSponsoringFutureReserves({})]);
    await expectRefused(harness, tx, ['op_not_sponsored'], 'endSponsoringFutureReservesNotSponsored');
  });

  it('fails a transaction that leaves a sponsorship open with tx_bad_sponsorship: fee charged, effects dropped', async () => {
    const [before, strangerBefore] = await Promise.all([load(sponsor), load(stranger)]);
    const tx = await buildTransaction(harness, sponsor, [
      pay(stranger, '7'),
      Operation.beginSponsoringFutureReserves({ sponsoredId: Keypair.random().publicKey() }),
    ]);
    const failure = await submitExpectingFailure(harness, tx);
    expect(failure.data.extras.result_codes).toEqual({ transaction: 'tx_bad_sponsorship' });
    const result = decodedResult(failure.data.extras.result_xdr);
    expect(result.result().switch().name).toBe('txBadSponsorship');
    expect(result.feeCharged().toString()).toBe('200');

    // in the ledger, as a failed transaction: sequence used and fee taken, the payment undone
    const record = await harness.horizon.transactions().transaction(tx.hash().toString('hex')).call();
    expect(record.successful).toBe(false);
    const after = await load(sponsor);
    expect(BigInt(after.sequence)).toBe(BigInt(before.sequence) + 1n);
    expect(nativeStroops(after)).toBe(nativeStroops(before) - 200n);
    expect(nativeStroops(await load(stranger))).toBe(nativeStroops(strangerBefore));
  });

  it('reports tx_bad_sponsorship inside a fee bump as the inner result', async () => {
    const inner = await buildTransaction(harness, sponsor, [
      Operation.beginSponsoringFutureReserves({ sponsoredId: Keypair.random().publicKey() }),
    ]);
    const failure = await submitExpectingFailure(harness, feeBumped(harness, stranger, inner));
    expect(failure.data.extras.result_codes).toEqual({
      transaction: 'tx_fee_bump_inner_failed',
      inner_transaction: { transaction: 'tx_bad_sponsorship' },
    });
    const pair = decodedResult(failure.data.extras.result_xdr).result().innerResultPair();
    expect(pair.result().result().switch().name).toBe('txBadSponsorship');
  });
});

describe('a sponsor without the reserve to give', () => {
  // 1.4 XLM: 0.4 XLM above its own two reserves, less than the 0.5 a trustline needs or the 1 an account needs
  let poorSponsor: Keypair;

  beforeAll(async () => {
    poorSponsor = Keypair.random();
    await harness.horizon.submitTransaction(
      await buildTransaction(harness, sponsor, [
        Operation.createAccount({ destination: poorSponsor.publicKey(), startingBalance: '1.4' }),
      ]),
    );
  });

  it('cannot sponsor a new account: op_low_reserve', async () => {
    const newcomer = Keypair.random();
    const tx = await sponsoredCreation(harness, poorSponsor, newcomer);
    await expectRefused(harness, tx, ['op_success', 'op_low_reserve', 'op_success'], 'createAccountLowReserve');
  });

  it('cannot sponsor a trustline, even for an account that could pay for it: op_low_reserve', async () => {
    const tx = await buildTransaction(
      harness,
      poorSponsor,
      sponsored(poorSponsor.publicKey(), stranger.publicKey(), [trustToken(stranger.publicKey())]),
      { signers: [poorSponsor, stranger] },
    );
    await expectRefused(harness, tx, ['op_success', 'op_low_reserve', 'op_success'], 'changeTrustLowReserve');
  });
});

describe('revoke_sponsorship', () => {
  // an account with 0 XLM whose account entry and trustline the sponsor pays for
  let broke: Keypair;

  beforeAll(async () => {
    broke = await sponsoredAccount(harness, sponsor);
    await harness.horizon.submitTransaction(
      await buildTransaction(harness, sponsor, sponsored(sponsor.publicKey(), broke.publicKey(), [trustToken(broke.publicKey())]), {
        signers: [sponsor, broke],
      }),
    );
  });

  const revokeBy = (source: Keypair, operations: xdr.Operation[]) => buildTransaction(harness, source, operations);

  it('reports op_does_not_exist for an account, a trustline, a signer or a data entry that is not there', async () => {
    const cases = [
      Operation.revokeAccountSponsorship({ account: Keypair.random().publicKey() }),
      Operation.revokeTrustlineSponsorship({ account: stranger.publicKey(), asset: new Asset('NONE', issuer.publicKey()) }),
      Operation.revokeSignerSponsorship({ account: stranger.publicKey(), signer: { ed25519PublicKey: Keypair.random().publicKey() } }),
      Operation.revokeDataSponsorship({ account: stranger.publicKey(), name: 'nothing' }),
    ];
    for (const operation of cases) {
      const failure = await submitExpectingFailure(harness, await revokeBy(sponsor, [operation]));
      expectOperationCode(failure, ['op_does_not_exist'], 'revokeSponsorshipDoesNotExist');
    }
  });

  it('rejects a trustline key no account can hold (an issuer trusting itself) with op_malformed, before the ledger', async () => {
    const tx = await revokeBy(sponsor, [Operation.revokeTrustlineSponsorship({ account: issuer.publicKey(), asset: token() })]);
    await expectRefused(harness, tx, ['op_malformed'], 'revokeSponsorshipMalformed');
  });

  it('reports op_not_sponsor when someone other than the sponsor revokes a sponsored entry', async () => {
    const tx = await revokeBy(stranger, [Operation.revokeAccountSponsorship({ account: broke.publicKey() })]);
    await expectRefused(harness, tx, ['op_not_sponsor'], 'revokeSponsorshipNotSponsor');
  });

  it('reports op_not_sponsor when someone other than the owner revokes an unsponsored entry', async () => {
    const tx = await revokeBy(sponsor, [Operation.revokeAccountSponsorship({ account: stranger.publicKey() })]);
    await expectRefused(harness, tx, ['op_not_sponsor'], 'revokeSponsorshipNotSponsor');
  });

  it('reports op_low_reserve when the owner could not hold the reserve handed back to it', async () => {
    const account = await revokeBy(sponsor, [Operation.revokeAccountSponsorship({ account: broke.publicKey() })]);
    await expectRefused(harness, account, ['op_low_reserve'], 'revokeSponsorshipLowReserve');
    const line = await revokeBy(sponsor, [Operation.revokeTrustlineSponsorship({ account: broke.publicKey(), asset: token() })]);
    await expectRefused(harness, line, ['op_low_reserve'], 'revokeSponsorshipLowReserve');
  });

  it('transfers a sponsorship to whoever sponsors the revoking sponsor in the transaction', async () => {
    const [sponsorBefore, strangerBefore] = await Promise.all([load(sponsor), load(stranger)]);
    const tx = await buildTransaction(
      harness,
      stranger,
      sponsored(stranger.publicKey(), sponsor.publicKey(), [
        Operation.revokeTrustlineSponsorship({ account: broke.publicKey(), asset: token(), source: sponsor.publicKey() }),
      ]),
      { signers: [stranger, sponsor] },
    );
    const transferred = await harness.horizon.submitTransaction(tx);
    expect(operationResultName(transferred.result_xdr, 1)).toBe('revokeSponsorshipSuccess');

    const holder = await load(broke);
    expect(trustlineOf(holder, 'SPN', issuer.publicKey())?.sponsor).toBe(stranger.publicKey());
    expect(holder.num_sponsored).toBe(3);
    expect((await load(sponsor)).num_sponsoring).toBe(sponsorBefore.num_sponsoring - 1);
    expect((await load(stranger)).num_sponsoring).toBe(strangerBefore.num_sponsoring + 1);
  });

  it('hands a sponsored account entry back to its owner once the owner can hold it', async () => {
    await harness.horizon.submitTransaction(await buildTransaction(harness, stranger, [pay(broke, '3')]));
    const sponsorBefore = await load(sponsor);
    await harness.horizon.submitTransaction(
      await revokeBy(sponsor, [Operation.revokeAccountSponsorship({ account: broke.publicKey() })]),
    );

    const owner = await load(broke);
    expect(owner.sponsor).toBeUndefined();
    expect(owner.num_sponsored).toBe(1);
    // 3 XLM less (2 + 1 subentry - 1 sponsored) base reserves
    expect(spendableStroops(owner)).toBe(30_000_000n - 2n * BASE_RESERVE);
    const sponsorAfter = await load(sponsor);
    expect(sponsorAfter.num_sponsoring).toBe(sponsorBefore.num_sponsoring - 2);
    expect(spendableStroops(sponsorAfter)).toBe(spendableStroops(sponsorBefore) - 100n + 2n * BASE_RESERVE);
  });

  it('lets the owner of an unsponsored trustline put it under the sponsor of its own reserves', async () => {
    const owner = await fundedAccount(harness);
    await harness.horizon.submitTransaction(await buildTransaction(harness, owner, [trustToken()]));
    const sponsorBefore = await load(sponsor);
    const tx = await buildTransaction(
      harness,
      sponsor,
      sponsored(sponsor.publicKey(), owner.publicKey(), [
        Operation.revokeTrustlineSponsorship({ account: owner.publicKey(), asset: token(), source: owner.publicKey() }),
      ]),
      { signers: [sponsor, owner] },
    );
    await harness.horizon.submitTransaction(tx);

    const after = await load(owner);
    expect(trustlineOf(after, 'SPN', issuer.publicKey())?.sponsor).toBe(sponsor.publicKey());
    expect(after.num_sponsored).toBe(1);
    expect((await load(sponsor)).num_sponsoring).toBe(sponsorBefore.num_sponsoring + 1);
  });

  it('succeeds without change when the owner of an unsponsored entry revokes it with no sponsor active', async () => {
    const before = await load(stranger);
    await harness.horizon.submitTransaction(
      await revokeBy(stranger, [Operation.revokeAccountSponsorship({ account: stranger.publicKey() })]),
    );
    const after = await load(stranger);
    expect(after).toMatchObject({ num_sponsored: before.num_sponsored, num_sponsoring: before.num_sponsoring });
    expect(after.sponsor).toBeUndefined();
  });
});

describe('sponsored signers', () => {
  it('records the sponsor on a signer added under sponsorship, and revoking hands the reserve back', async () => {
    const owner = await fundedAccount(harness);
    const cosigner = Keypair.random().publicKey();
    const sponsorBefore = await load(sponsor);
    await harness.horizon.submitTransaction(
      await buildTransaction(
        harness,
        sponsor,
        sponsored(sponsor.publicKey(), owner.publicKey(), [
          Operation.setOptions({ signer: { ed25519PublicKey: cosigner, weight: 1 }, source: owner.publicKey() }),
        ]),
        { signers: [sponsor, owner] },
      ),
    );
    const withSigner = await load(owner);
    expect(withSigner.signers).toContainEqual({
      key: cosigner,
      weight: 1,
      type: 'ed25519_public_key',
      sponsor: sponsor.publicKey(),
    });
    expect(withSigner).toMatchObject({ subentry_count: 1, num_sponsored: 1 });
    expect((await load(sponsor)).num_sponsoring).toBe(sponsorBefore.num_sponsoring + 1);

    await harness.horizon.submitTransaction(
      await buildTransaction(harness, sponsor, [
        Operation.revokeSignerSponsorship({ account: owner.publicKey(), signer: { ed25519PublicKey: cosigner } }),
      ]),
    );
    const revoked = await load(owner);
    expect(revoked.signers).toContainEqual({ key: cosigner, weight: 1, type: 'ed25519_public_key' });
    expect(revoked).toMatchObject({ subentry_count: 1, num_sponsored: 0 });
    expect((await load(sponsor)).num_sponsoring).toBe(sponsorBefore.num_sponsoring);
  });
});
