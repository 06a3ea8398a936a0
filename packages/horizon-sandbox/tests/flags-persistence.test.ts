import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AuthClawbackEnabledFlag, AuthRevocableFlag, Operation } from '@stellar/stellar-sdk';
import {
  CLAWBACK_ISSUER_FLAGS,
  TRUSTLINE_AUTHORIZED,
  TRUSTLINE_CLAWBACK_ENABLED,
  TRUSTLINE_MAINTAIN_LIABILITIES,
  clawbackOp,
  holderOf,
  horizonLine,
  issuerWith,
  newAsset,
  rpcLine,
} from './issuer-helpers';
import { expectRefused } from './reserve-helpers';
import { buildTransaction, startSandbox } from './sandbox-harness';

// Account and trustline flags are the issuer's control over its asset: a restart that forgot them
// would silently let a frozen wallet pay, or a pre-clawback wallet be clawed back.

let dataDir: string;

beforeEach(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'sandbox-flags-'));
});

afterEach(() => rm(dataDir, { recursive: true, force: true }));

const STATE_FILE = 'ledger-state.json';

describe('account and trustline flags across a restart', () => {
  it('keeps the issuer\'s flags and each line\'s flags, frozen and pre-clawback lines included', async () => {
    const first = await startSandbox({ dataDir });
    const issuer = await issuerWith(first, CLAWBACK_ISSUER_FLAGS);
    const asset = newAsset('KPT', issuer);
    const frozen = await holderOf(first, asset, issuer, '7');
    await first.horizon.submitTransaction(
      await buildTransaction(first, issuer, [
        Operation.setTrustLineFlags({ trustor: frozen.publicKey(), asset, flags: { authorized: false, authorizedToMaintainLiabilities: true } }),
      ]),
    );
    const plainIssuer = await issuerWith(first);
    const late = newAsset('OLD', plainIssuer);
    const oldWallet = await holderOf(first, late, plainIssuer, '3');
    await first.horizon.submitTransaction(
      await buildTransaction(first, plainIssuer, [Operation.setOptions({ setFlags: AuthRevocableFlag }), Operation.setOptions({ setFlags: AuthClawbackEnabledFlag })]),
    );
    const frozenBefore = await horizonLine(first, frozen, asset);
    await first.close();

    const second = await startSandbox({ dataDir });
    try {
      expect((await second.horizon.loadAccount(issuer.publicKey())).flags).toMatchObject({ auth_revocable: true, auth_clawback_enabled: true });
      expect((await second.rpc.getAccountEntry(plainIssuer.publicKey())).flags()).toBe(CLAWBACK_ISSUER_FLAGS);
      expect(await horizonLine(second, frozen, asset)).toEqual(frozenBefore);
      expect(await rpcLine(second, frozen, asset)).toEqual({ balance: 70_000_000n, flags: TRUSTLINE_MAINTAIN_LIABILITIES | TRUSTLINE_CLAWBACK_ENABLED });
      // the wallet that trusted before clawback was enabled is still out of its reach
      expect((await rpcLine(second, oldWallet, late)).flags).toBe(TRUSTLINE_AUTHORIZED);
      await expectRefused(second, await buildTransaction(second, plainIssuer, [clawbackOp(late, oldWallet, '1')]), ['op_not_clawback_enabled'], 'clawbackNotClawbackEnabled');
    } finally {
      await second.close();
    }
  });

  it('loads a state file written before trustline flags as authorized lines without clawback, as they were shown', async () => {
    const first = await startSandbox({ dataDir });
    const issuer = await issuerWith(first, CLAWBACK_ISSUER_FLAGS);
    const asset = newAsset('PRE', issuer);
    const holder = await holderOf(first, asset, issuer, '1');
    await first.close();
    // strip the flags from every line, as the sandbox wrote them before it had any
    const file = path.join(dataDir, STATE_FILE);
    const state = JSON.parse(await readFile(file, 'utf8')) as { accounts: { trustlines: { flags?: number }[] }[] };
    for (const account of state.accounts) for (const line of account.trustlines) delete line.flags;
    await writeFile(file, JSON.stringify(state));

    const second = await startSandbox({ dataDir });
    try {
      expect(await horizonLine(second, holder, asset)).toMatchObject({ is_authorized: true, is_clawback_enabled: false });
      expect((await rpcLine(second, holder, asset)).flags).toBe(TRUSTLINE_AUTHORIZED);
    } finally {
      await second.close();
    }
  });
});
