import {
  AuthClawbackEnabledFlag,
  AuthImmutableFlag,
  AuthRequiredFlag,
  AuthRevocableFlag,
  Operation,
  type Keypair,
} from '@stellar/stellar-sdk';
import { CLAWBACK_ISSUER_FLAGS, asFlags, firstResultName, issuerWith, setAccountFlags } from './issuer-helpers';
import { expectRefused } from './reserve-helpers';
import { buildTransaction, startSandbox, type SandboxHarness } from './sandbox-harness';

// An issuer's account flags (set_options setFlags/clearFlags) as stellar-core applies them: the
// rules CAP-35 added for clawback, seen through Horizon's `flags` and RPC's AccountEntry.flags.

let harness: SandboxHarness;

beforeAll(async () => {
  harness = await startSandbox();
});

afterAll(() => harness.close());

const setOptions = (flags: { setFlags?: number; clearFlags?: number }) =>
  Operation.setOptions({
    ...(flags.setFlags !== undefined ? { setFlags: asFlags(flags.setFlags) } : {}),
    ...(flags.clearFlags !== undefined ? { clearFlags: asFlags(flags.clearFlags) } : {}),
  });

async function refused(account: Keypair, flags: { setFlags?: number; clearFlags?: number }, code: string, xdrName: string) {
  await expectRefused(harness, await buildTransaction(harness, account, [setOptions(flags)]), [code], xdrName);
}

async function flagsOf(account: Keypair) {
  const horizon = (await harness.horizon.loadAccount(account.publicKey())).flags;
  const rpc = (await harness.rpc.getAccountEntry(account.publicKey())).flags();
  return { horizon, rpc };
}

describe('issuer account flags', () => {
  it('enables clawback together with revocable, shown on Horizon and in the RPC account entry', async () => {
    const issuer = await issuerWith(harness);
    expect(firstResultName(await setAccountFlags(harness, issuer, CLAWBACK_ISSUER_FLAGS))).toBe('setOptionsSuccess');

    expect(await flagsOf(issuer)).toEqual({
      horizon: { auth_required: false, auth_revocable: true, auth_immutable: false, auth_clawback_enabled: true },
      rpc: AuthRevocableFlag | AuthClawbackEnabledFlag,
    });
  });

  it('shows every flag an issuer sets, auth_required and auth_immutable included', async () => {
    const issuer = await issuerWith(harness, AuthRequiredFlag | AuthRevocableFlag | AuthImmutableFlag);
    expect(await flagsOf(issuer)).toEqual({
      horizon: { auth_required: true, auth_revocable: true, auth_immutable: true, auth_clawback_enabled: false },
      rpc: AuthRequiredFlag | AuthRevocableFlag | AuthImmutableFlag,
    });
  });

  it('refuses clawback without revocable (op_auth_revocable_required), leaving the flags as they were', async () => {
    const issuer = await issuerWith(harness);
    await refused(issuer, { setFlags: AuthClawbackEnabledFlag }, 'op_auth_revocable_required', 'setOptionsAuthRevocableRequired');
    expect((await flagsOf(issuer)).rpc).toBe(0);
  });

  it('refuses clearing revocable while clawback stays enabled (op_auth_revocable_required)', async () => {
    const issuer = await issuerWith(harness, CLAWBACK_ISSUER_FLAGS);
    await refused(issuer, { clearFlags: AuthRevocableFlag }, 'op_auth_revocable_required', 'setOptionsAuthRevocableRequired');
    // clearing both is fine: the issuer gives up clawback for lines created from now on
    await harness.horizon.submitTransaction(await buildTransaction(harness, issuer, [setOptions({ clearFlags: CLAWBACK_ISSUER_FLAGS })]));
    expect((await flagsOf(issuer)).rpc).toBe(0);
  });

  it('refuses any flag change once auth_immutable is set (op_cant_change), but lets a zero mask through', async () => {
    const issuer = await issuerWith(harness, AuthImmutableFlag);
    await refused(issuer, { setFlags: CLAWBACK_ISSUER_FLAGS }, 'op_cant_change', 'setOptionsCantChange');
    await refused(issuer, { clearFlags: AuthImmutableFlag }, 'op_cant_change', 'setOptionsCantChange');
    // core checks immutability only when an auth flag is touched; setFlags 0 touches none
    const noop = await harness.horizon.submitTransaction(await buildTransaction(harness, issuer, [setOptions({ setFlags: 0 })]));
    expect(firstResultName(noop.result_xdr)).toBe('setOptionsSuccess');
    expect((await flagsOf(issuer)).rpc).toBe(AuthImmutableFlag);
  });

  it('refuses a flag protocol 23 does not know (op_unknown_flag), before a flag both set and cleared', async () => {
    const issuer = await issuerWith(harness);
    await refused(issuer, { setFlags: 16 }, 'op_unknown_flag', 'setOptionsUnknownFlag');
    // core's doCheckValid looks at unknown bits first, so this is not op_bad_flags
    await refused(issuer, { setFlags: 16 | AuthRevocableFlag, clearFlags: AuthRevocableFlag }, 'op_unknown_flag', 'setOptionsUnknownFlag');
    await refused(issuer, { setFlags: AuthRevocableFlag, clearFlags: AuthRevocableFlag }, 'op_bad_flags', 'setOptionsBadFlags');
  });
});
