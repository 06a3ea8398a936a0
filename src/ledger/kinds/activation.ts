import { Operation, type Asset, type xdr } from '@stellar/stellar-sdk';
import { balanceOf, type LedgerApi } from '../../clients/ledger-api';
import { walletsActivated } from '../../db/repositories/wallet.repository';
import { formatStroops, parseTokenAmount } from '../../domain/amounts';
import { sponsored } from '../channel-accounts';
import { type EntryKind, finalWhenDoneOrHopeless, jobOf } from './entry-kind';

/**
 * A new wallet (its public key) on the network: its account and its token trustline. `fresh`: the
 * key pair was just generated, so the account cannot exist yet and the network is not asked.
 */
export interface ActivationCommand {
  kind: 'activation';
  userId: string;
  wallet: string;
  fresh: boolean;
  startingXlm: string;
}

export function activationCommand(command: Omit<ActivationCommand, 'kind'>): ActivationCommand {
  return { kind: 'activation', ...command };
}

/**
 * A signup's wallet, as far as the network lacks it, sponsored by the distribution account. The
 * service finishes it by itself; an account that already exists is over (done, or someone else's:
 * the activation sweep takes it from there). Its confirmation makes the wallet active. A wallet the
 * network already holds whole needs no entry: the command answers nothing_to_do.
 */
export const activation: EntryKind<ActivationCommand> = {
  name: 'activation',
  record: false,
  mustFinish: true,
  supply: 'none',
  async prepare(command, { ledger, client }) {
    const state = command.fresh ? 'missing' : await walletOnLedger(client, ledger.asset, command.wallet);
    const sponsor = ledger.keys.distribution.publicKey();
    const operations = activationOperations(ledger.asset, sponsor, command.wallet, state, command.startingXlm);
    if (operations.length === 0) return undefined;
    const amountStroops = parseTokenAmount(command.startingXlm) ?? 0n;
    return { entry: { kind: 'activation', userId: command.userId, fromPublicKey: sponsor, toPublicKey: command.wallet, amountStroops, assetCode: 'XLM' }, operations };
  },
  async job(entry, { ledger, client, walletKey }, known) {
    const wallet = await walletKey(entry.toPublicKey);
    if (known) return jobOf(ledger.distribution, entry, known, [wallet]);
    const state = await walletOnLedger(client, ledger.asset, wallet.publicKey());
    // An activation found done on the ledger still needs an envelope to settle its entry: the trustline is re-asserted.
    const operations = activationOperations(ledger.asset, ledger.keys.distribution.publicKey(), wallet.publicKey(), state === 'ready' ? 'untrusting' : state, formatStroops(entry.amountStroops));
    return jobOf(ledger.distribution, entry, operations, [wallet]);
  },
  refusal: finalWhenDoneOrHopeless,
  async confirmed(tx, entries) {
    await walletsActivated(tx, entries.flatMap((e) => (e.userId ? [e.userId] : [])));
  },
};

/** Where a wallet stands on the ledger, as far as its activation is concerned. */
type WalletOnLedger = 'missing' | 'untrusting' | 'ready';

async function walletOnLedger(client: LedgerApi, asset: Asset, wallet: string): Promise<WalletOnLedger> {
  const account = await client.loadAccount(wallet, asset);
  if (!account) return 'missing';
  return balanceOf(account, asset) ? 'ready' : 'untrusting';
}

/**
 * A wallet's account and its token trustline, their reserves sponsored by `sponsor` (the
 * distribution account): the wallet holds only `startingXlm` (0 by default), nothing a scripted
 * signup could withdraw, and never pays a fee (its transfers are fee-bumped).
 */
function activationOperations(asset: Asset, sponsor: string, wallet: string, state: WalletOnLedger, startingXlm: string): xdr.Operation[] {
  const trust = Operation.changeTrust({ asset, source: wallet });
  if (state === 'missing') {
    const create = Operation.createAccount({ destination: wallet, startingBalance: startingXlm, source: sponsor });
    return sponsored(sponsor, wallet, [create, trust]);
  }
  return state === 'untrusting' ? sponsored(sponsor, wallet, [trust]) : [];
}
