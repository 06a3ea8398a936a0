import { channelKeyOf, channelRemoval } from '../channel-accounts';
import { anyRefusalIsFinal, type EntryKind, jobOf } from './entry-kind';

/** `npm run ledger:channels`: a channel account beyond LEDGER_CHANNELS is merged into the distribution account. */
export interface ChannelMergeCommand {
  kind: 'channel_merge';
  channel: string;
}

export const channelMergeCommand = (channel: string): ChannelMergeCommand => ({ kind: 'channel_merge', channel });

/**
 * A channel merged back, on the distribution account's own lane. Left to the reconciler rather
 * than dropped when nothing can send it (the command waits for it), but any refusal is the answer.
 */
export const channelMerge: EntryKind<ChannelMergeCommand> = {
  name: 'channel_merge',
  record: false,
  mustFinish: true,
  supply: 'none',
  async prepare(command) {
    return { entry: { kind: 'channel_merge', fromPublicKey: command.channel, toPublicKey: command.channel, amountStroops: 0n, assetCode: 'XLM' } };
  },
  async job(entry, { ledger }) {
    const channel = channelKeyOf(ledger.keys.distribution, entry.toPublicKey);
    if (!channel) throw new Error(`${entry.toPublicKey} is not one of the distribution account's channels`);
    return jobOf(ledger.distributionDirect, entry, channelRemoval(ledger.keys.distribution, channel), [channel]);
  },
  refusal: anyRefusalIsFinal,
};
