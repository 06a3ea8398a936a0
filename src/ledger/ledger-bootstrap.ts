import type { Asset } from '@stellar/stellar-sdk';
import type { LedgerApi } from '../clients/ledger-api';
import type { IdempotencyClaim } from '../db/repositories/idempotency.repository';
import type { JournalRepository } from '../db/repositories/journal.repository';
import type { Logger } from '../logger';
import { MAX_CHANNELS, channelKeys } from './channel-accounts';
import { channelMergeCommand } from './kinds/channel-merge';
import type { Journal } from './journal';
import type { LedgerAccounts, JournalAccounts } from './ledger-accounts';
import { bootstrapLedger, type SystemKeys } from './system-accounts';
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

  private async bootstrap(): Promise<JournalAccounts> {
    const { accounts, client, friendbotUrl, logger, channelCount } = this.parts;
    const ready = await accounts.ready();
    await bootstrapLedger({
      client,
      keys: ready.keys,
      asset: ready.asset,
      friendbotUrl,
      logger,
      channels: channelKeys(ready.keys.distribution, channelCount),
      write: (command) => this.confirmed(command),
    });
    logger.info({ issuer: ready.keys.issuer.publicKey(), distribution: ready.keys.distribution.publicKey(), tokenCode: ready.asset.getCode() }, 'ledger ready');
    return ready;
  }

  /** One of the bootstrap's writes: true once applied, false while pending; a refusal is thrown (the bootstrap cannot go on). */
  private async confirmed(command: WriteCommand): Promise<boolean> {
    const result = await this.parts.journal.write(command);
    if (!result.written) throw new Error(`the ${command.kind} write was not made (${result.reason})`);
    if (result.outcome.status === 'failed') throw result.outcome.error;
    return result.outcome.status === 'confirmed';
  }
}
