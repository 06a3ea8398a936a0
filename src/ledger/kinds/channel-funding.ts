import { channelCreation, channelKeyOf } from '../channel-accounts';
import { type EntryKind, finalWhenDoneOrHopeless, jobOf } from './entry-kind';

/** The bootstrap's: one of the distribution account's channel accounts (its public key) is created. */
export interface ChannelFundingCommand {
  kind: 'channel_funding';
  channel: string;
}

export const channelFundingCommand = (channel: string): ChannelFundingCommand => ({ kind: 'channel_funding', channel });

/** A channel account, created on the distribution account's own lane; the service finishes it, an account that exists is over. */
export const channelFunding: EntryKind<ChannelFundingCommand> = {
  name: 'channel_funding',
  record: false,
  mustFinish: true,
  supply: 'none',
  async prepare(command, { ledger }) {
    return { entry: { kind: 'channel_funding', fromPublicKey: ledger.keys.distribution.publicKey(), toPublicKey: command.channel, amountStroops: 0n, assetCode: 'XLM' } };
  },
  async job(entry, { ledger }) {
    const channel = channelKeyOf(ledger.keys.distribution, entry.toPublicKey);
    if (!channel) throw new Error(`${entry.toPublicKey} is not one of the distribution account's channels`);
    return jobOf(ledger.distributionDirect, entry, channelCreation(ledger.keys.distribution, channel), [channel]);
  },
  refusal: finalWhenDoneOrHopeless,
};
