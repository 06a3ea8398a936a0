import type { Asset, Keypair } from '@stellar/stellar-sdk';
import { fundWithFriendbot } from '../clients/friendbot';
import { balanceOf, type LedgerApi } from '../clients/ledger-api';
import { errorReason } from '../errors/loggable-error';
import type { IdempotencyClaim } from '../db/repositories/idempotency.repository';
import type { JournalRepository } from '../db/repositories/journal.repository';
import type { Logger } from '../logger';
import { MAX_CHANNELS, channelKeys } from './channel-accounts';
import { channelFundingCommand } from './kinds/channel-funding';
import { channelMergeCommand } from './kinds/channel-merge';
import { issuerFlagsCommand } from './kinds/issuer-flags';
import { trustlineCommand } from './kinds/trustline';
import type { Journal } from './journal';
import type { LedgerAccounts, JournalAccounts } from './ledger-accounts';
import type { SystemKeys } from './system-accounts';
import type { WriteCommand, WriteOptions, WriteResult } from './write-command';

export interface BootstrapParts {
  journal: Journal;
  accounts: LedgerAccounts;
  repository: JournalRepository;
  client: LedgerApi;
  friendbotUrl: string | undefined;
  channelCount: number;
  logger: Logger;
}

/** The journal's writes as use cases make them: only once the network holds what the service needs (LedgerBootstrap.ready). */
export interface JournalWrites {
  write(command: WriteCommand, options?: WriteOptions): Promise<WriteResult>;
  previousWrite: Journal['previousWrite'];
  writtenEntry: Journal['writtenEntry'];
}

/**
 * What the network must hold before any use case writes: both system accounts, the issuer's
 * clawback flags, the distribution account's trustline and its channel accounts. Its writes go
 * through the journal like every other; it sits above the journal and the journal never calls it.
 * Lazy and retried: a network down at start makes ledger routes answer 503 until it is back.
 */
export class LedgerBootstrap implements JournalWrites {
  private readyPromise: Promise<JournalAccounts> | undefined;

  constructor(private readonly parts: BootstrapParts) {}

  /** The issuing and distribution keys (loaded or generated once, before any network work). */
  keys(): Promise<SystemKeys> {
    return this.parts.accounts.keys();
  }

  /** The accounts, once the network holds everything the service needs. */
  ready(): Promise<JournalAccounts> {
    this.readyPromise ??= this.bootstrap().catch((err: unknown) => {
      this.readyPromise = undefined;
      throw err;
    });
    return this.readyPromise;
  }

  /** A use case's write: waits for the bootstrap first. */
  async write(command: WriteCommand, options?: WriteOptions): Promise<WriteResult> {
    await this.ready();
    return this.parts.journal.write(command, options);
  }

  previousWrite(claim: IdempotencyClaim | undefined): Promise<WriteResult | undefined> {
    return this.parts.journal.previousWrite(claim);
  }

  writtenEntry(entryId: string): Promise<WriteResult | undefined> {
    return this.parts.journal.writtenEntry(entryId);
  }

  /** The token, once the network is ready. */
  async asset(): Promise<Asset> {
    return (await this.ready()).asset;
  }

  /**
   * Makes the channel accounts match LEDGER_CHANNELS: the bootstrap created the missing ones;
   * channels past the count that exist are merged into the distribution account (their reserve
   * returns to it). A channel with an envelope still open is left for a later run. Lower
   * LEDGER_CHANNELS on every running process before removing: a process still using a merged
   * channel sees tx_no_source_account and its entries ride again on its other lanes.
   */
  async removeChannelsBeyond(count: number): Promise<{ removed: string[]; busy: string[] }> {
    const ledger = await this.ready();
    const removed: string[] = [];
    const busy: string[] = [];
    for (const channel of channelKeys(ledger.keys.distribution, MAX_CHANNELS).slice(count)) {
      const publicKey = channel.publicKey();
      if (!(await this.parts.client.loadAccount(publicKey))) continue;
      if (await this.parts.repository.hasOpenEnvelopeFrom(publicKey)) {
        busy.push(publicKey);
        continue;
      }
      (await this.confirmed(channelMergeCommand(publicKey)) ? removed : busy).push(publicKey);
    }
    return { removed, busy };
  }

  /**
   * Makes the ledger ready for the service: both accounts exist (funded through the friendbot on
   * the sandbox or testnet), the issuer can take its token back, the distribution account trusts
   * the token and its channel accounts exist. Safe to run at every start: the flags, the trustline
   * and the channels are journal writes, and what an earlier start made is simply found. The
   * sandbox and testnet go through this same code; only the URLs and passphrase differ.
   */
  private async bootstrap(): Promise<JournalAccounts> {
    const { accounts, client, friendbotUrl, logger, channelCount } = this.parts;
    const ready = await accounts.ready();
    const { keys, asset } = ready;
    for (const [name, pair] of [
      ['issuer', keys.issuer],
      ['distribution', keys.distribution],
    ] as const) {
      if (await client.loadAccount(pair.publicKey())) continue;
      if (!friendbotUrl) throw new Error(`the ${name} account ${pair.publicKey()} does not exist on the ledger and no FRIENDBOT_URL can fund it`);
      logger.info({ account: name, publicKey: pair.publicKey() }, 'funding system account through friendbot');
      await fundWithFriendbot(friendbotUrl, pair.publicKey());
    }
    // The issuer enables clawback first, so every trustline created from then on can give tokens back.
    await this.enableClawback(keys.issuer.publicKey());
    const distribution = await client.loadAccount(keys.distribution.publicKey(), asset);
    if (distribution && !balanceOf(distribution, asset)) {
      logger.info({ asset: asset.getCode() }, 'distribution account trusting the token');
      mustBeConfirmed(await this.confirmed(trustlineCommand()), 'the distribution trustline');
    }
    const missing: Keypair[] = [];
    for (const channel of channelKeys(keys.distribution, channelCount)) if (!(await client.loadAccount(channel.publicKey()))) missing.push(channel);
    if (missing.length > 0) logger.info({ count: missing.length }, 'creating channel accounts');
    const writes = await Promise.all(missing.map((channel) => this.confirmed(channelFundingCommand(channel.publicKey()))));
    for (const confirmed of writes) mustBeConfirmed(confirmed, 'a channel account');
    logger.info({ issuer: ready.keys.issuer.publicKey(), distribution: ready.keys.distribution.publicKey(), tokenCode: ready.asset.getCode() }, 'ledger ready');
    return ready;
  }

  /**
   * Sets the issuer's AUTH_REVOCABLE and AUTH_CLAWBACK_ENABLED once (a reversed payment's tokens are
   * taken back by clawback). An issuer that cannot (AUTH_IMMUTABLE) leaves the service running:
   * every reversal then becomes the buyer's debt, as for wallets whose trustline predates the flag.
   */
  private async enableClawback(issuer: string): Promise<void> {
    const { client, logger } = this.parts;
    const account = await client.loadAccount(issuer);
    if (!account || (account.flags.authRevocable && account.flags.authClawbackEnabled)) return;
    logger.info({ issuer }, 'issuer enabling clawback');
    try {
      const confirmed = await this.confirmed(issuerFlagsCommand());
      if (!confirmed) logger.warn({ issuer }, "the issuer's clawback flags are not confirmed yet: the journal finishes them");
    } catch (err) {
      logger.warn({ issuer, reason: errorReason(err) }, 'the issuer could not enable clawback: reversed payments become debts');
    }
  }

  /** One of the bootstrap's writes: true once applied, false while pending; a refusal is thrown (the bootstrap cannot go on). */
  private async confirmed(command: WriteCommand): Promise<boolean> {
    const result = await this.parts.journal.write(command);
    if (!result.written) throw new Error(`the ${command.kind} write was not made (${result.reason})`);
    if (result.outcome.status === 'failed') throw result.outcome.error;
    return result.outcome.status === 'confirmed';
  }
}

/** The bootstrap cannot go on until the network applied what it wrote. */
function mustBeConfirmed(confirmed: boolean, what: string): void {
  if (!confirmed) throw new Error(`${what} not confirmed yet`);
}
