import { AuthRequiredFlag, Asset, Operation, type Keypair, type xdr } from '@stellar/stellar-sdk';
import {
  CLAWBACK_ISSUER_FLAGS,
  TRUSTLINE_AUTHORIZED,
  TRUSTLINE_CLAWBACK_ENABLED,
  TRUSTLINE_MAINTAIN_LIABILITIES,
  clawbackOp,
  firstResultName,
  holderOf,
  horizonLine,
  issuerWith,
  mint,
  newAsset,
  rpcLine,
} from './issuer-helpers';
import { expectRefused } from './reserve-helpers';
import { buildTransaction, fundedAccount, startSandbox, type SandboxHarness } from './sandbox-harness';

// set_trust_line_flags (CAP-35) as stellar-core applies it: an issuer authorizing, freezing and
// deauthorizing a holder's line, or giving up clawback on it, with one real envelope per result code.

type LineFlags = { authorized?: boolean; authorizedToMaintainLiabilities?: boolean; clawbackEnabled?: boolean };

let harness: SandboxHarness;
let issuer: Keypair;
let asset: Asset;

beforeAll(async () => {
  harness = await startSandbox();
  issuer = await issuerWith(harness, CLAWBACK_ISSUER_FLAGS);
  asset = newAsset('FRZ', issuer);
});

afterAll(() => harness.close());

const flagsOp = (trustor: Keypair, flags: LineFlags, on = asset): xdr.Operation =>
  Operation.setTrustLineFlags({ trustor: trustor.publicKey(), asset: on, flags });

async function setLineFlags(trustor: Keypair, flags: LineFlags, source = issuer, on = asset): Promise<string> {
  const response = await harness.horizon.submitTransaction(await buildTransaction(harness, source, [flagsOp(trustor, flags, on)]));
  return firstResultName(response.result_xdr);
}

async function refused(source: Keypair, op: xdr.Operation, code: string, xdrName: string): Promise<void> {
  await expectRefused(harness, await buildTransaction(harness, source, [op]), [code], xdrName);
}

const pay = (destination: Keypair, amount: string) => Operation.payment({ destination: destination.publicKey(), asset, amount });

describe('an issuer changing a holder\'s line', () => {
  it('freezes it (authorized to maintain liabilities): no payment in or out, still clawed back', async () => {
    const holder = await holderOf(harness, asset, issuer, '10');
    const friend = await holderOf(harness, asset, issuer);
    expect(await setLineFlags(holder, { authorized: false, authorizedToMaintainLiabilities: true })).toBe('setTrustLineFlagsSuccess');

    expect(await horizonLine(harness, holder, asset)).toMatchObject({
      is_authorized: false,
      is_authorized_to_maintain_liabilities: true,
      is_clawback_enabled: true,
      balance: '10.0000000',
    });
    expect((await rpcLine(harness, holder, asset)).flags).toBe(TRUSTLINE_MAINTAIN_LIABILITIES | TRUSTLINE_CLAWBACK_ENABLED);

    await refused(issuer, pay(holder, '1'), 'op_not_authorized', 'paymentNotAuthorized');
    await refused(holder, pay(friend, '1'), 'op_src_not_authorized', 'paymentSrcNotAuthorized');
    // clawback skips authorization on purpose: a frozen balance is exactly what an issuer takes back
    await harness.horizon.submitTransaction(await buildTransaction(harness, issuer, [clawbackOp(asset, holder, '4')]));
    expect((await rpcLine(harness, holder, asset)).balance).toBe(60_000_000n);
  });

  it('deauthorizes and authorizes it again, payments following the flag', async () => {
    const holder = await holderOf(harness, asset, issuer, '2');
    expect(await setLineFlags(holder, { authorized: false })).toBe('setTrustLineFlagsSuccess');
    expect(await horizonLine(harness, holder, asset)).toMatchObject({ is_authorized: false, is_authorized_to_maintain_liabilities: false });
    await refused(issuer, pay(holder, '1'), 'op_not_authorized', 'paymentNotAuthorized');

    expect(await setLineFlags(holder, { authorized: true })).toBe('setTrustLineFlagsSuccess');
    await mint(harness, issuer, holder, asset, '1');
    expect(await rpcLine(harness, holder, asset)).toEqual({ balance: 30_000_000n, flags: TRUSTLINE_AUTHORIZED | TRUSTLINE_CLAWBACK_ENABLED });
  });

  it('clears clawback for good: the line is then out of reach (op_not_clawback_enabled) and cannot be re-enabled', async () => {
    const holder = await holderOf(harness, asset, issuer, '5');
    expect(await setLineFlags(holder, { clawbackEnabled: false })).toBe('setTrustLineFlagsSuccess');
    expect((await horizonLine(harness, holder, asset)).is_clawback_enabled).toBe(false);
    expect((await rpcLine(harness, holder, asset)).flags).toBe(TRUSTLINE_AUTHORIZED);

    await refused(issuer, clawbackOp(asset, holder, '1'), 'op_not_clawback_enabled', 'clawbackNotClawbackEnabled');
    await refused(issuer, flagsOp(holder, { clawbackEnabled: true }), 'op_malformed', 'setTrustLineFlagsMalformed');
  });

  it('under AUTH_REQUIRED, creates lines unauthorized until the issuer authorizes them, which needs no revocable', async () => {
    const gatekeeper = await issuerWith(harness, AuthRequiredFlag);
    const gated = newAsset('KYC', gatekeeper);
    const holder = await holderOf(harness, gated, gatekeeper);
    expect(await horizonLine(harness, holder, gated)).toMatchObject({ is_authorized: false, is_clawback_enabled: false });
    expect((await rpcLine(harness, holder, gated)).flags).toBe(0);
    await refused(gatekeeper, Operation.payment({ destination: holder.publicKey(), asset: gated, amount: '1' }), 'op_not_authorized', 'paymentNotAuthorized');

    expect(await setLineFlags(holder, { authorized: true }, gatekeeper, gated)).toBe('setTrustLineFlagsSuccess');
    await mint(harness, gatekeeper, holder, gated, '1');
    expect((await horizonLine(harness, holder, gated)).balance).toBe('1.0000000');
  });
});

describe('set_trust_line_flags refused', () => {
  it('taking authorization away without AUTH_REVOCABLE (op_cant_revoke), checked before the line is looked up', async () => {
    const plain = await issuerWith(harness, AuthRequiredFlag);
    const plainAsset = newAsset('PLN', plain);
    const holder = await holderOf(harness, plainAsset, plain);
    await refused(plain, flagsOp(holder, { authorized: false }, plainAsset), 'op_cant_revoke', 'setTrustLineFlagsCantRevoke');
    await refused(plain, flagsOp(holder, { authorized: false, authorizedToMaintainLiabilities: true }, plainAsset), 'op_cant_revoke', 'setTrustLineFlagsCantRevoke');
    // an account without the line still gets op_cant_revoke, not op_no_trust: core's order
    const stranger = await fundedAccount(harness);
    await refused(plain, flagsOp(stranger, { authorized: false }, plainAsset), 'op_cant_revoke', 'setTrustLineFlagsCantRevoke');
  });

  it('for an account without the line (op_no_trust, Horizon\'s name for NO_TRUST_LINE)', async () => {
    const stranger = await fundedAccount(harness);
    await refused(issuer, flagsOp(stranger, { authorized: false }), 'op_no_trust', 'setTrustLineFlagsNoTrustLine');
  });

  it('leaving both authorization flags set (op_invalid_state)', async () => {
    const holder = await holderOf(harness, asset, issuer);
    await refused(issuer, flagsOp(holder, { authorizedToMaintainLiabilities: true }), 'op_invalid_state', 'setTrustLineFlagsInvalidState');
    expect((await rpcLine(harness, holder, asset)).flags).toBe(TRUSTLINE_AUTHORIZED | TRUSTLINE_CLAWBACK_ENABLED);
  });

  it('when malformed: lumens, not the issuer, the issuer itself, both auth flags set (op_malformed)', async () => {
    const holder = await holderOf(harness, asset, issuer);
    const malformed = (source: Keypair, op: xdr.Operation) => refused(source, op, 'op_malformed', 'setTrustLineFlagsMalformed');
    await malformed(issuer, flagsOp(holder, { authorized: false }, Asset.native()));
    await malformed(holder, flagsOp(holder, { authorized: false }));
    await malformed(issuer, flagsOp(issuer, { authorized: false }));
    await malformed(issuer, flagsOp(holder, { authorized: true, authorizedToMaintainLiabilities: true }));
  });

  it('with bits the SDK cannot express: an unknown flag, or one both set and cleared (op_malformed)', async () => {
    const holder = await holderOf(harness, asset, issuer);
    const unknown = flagsOp(holder, { authorized: true });
    unknown.body().setTrustLineFlagsOp().setFlags(TRUSTLINE_AUTHORIZED | 8);
    await refused(issuer, unknown, 'op_malformed', 'setTrustLineFlagsMalformed');
    const contradictory = flagsOp(holder, { authorized: true });
    contradictory.body().setTrustLineFlagsOp().clearFlags(TRUSTLINE_AUTHORIZED);
    await refused(issuer, contradictory, 'op_malformed', 'setTrustLineFlagsMalformed');
  });
});
