import { runCommand, waitForLedger } from './cli-container';

/**
 * `npm run ledger:channels`: makes the distribution account's channel accounts match
 * LEDGER_CHANNELS. Missing channels are created (sponsored, 0 XLM), as every start does; channels
 * past the count are merged back into the distribution account, which gets their reserve back.
 * To remove channels, lower LEDGER_CHANNELS for every running process first, then run this.
 * Exit code 0 when the ledger matches, 3 when a channel still had an open envelope (run again later).
 */
runCommand('ledger:channels', async (container, config) => {
  await waitForLedger(() => container.ledgerModule.bootstrap.ready());
  const { removed, busy } = await container.ledgerModule.bootstrap.removeChannelsBeyond(config.ledger.channelCount);
  console.log(`${config.ledger.channelCount} channel accounts in use`);
  for (const key of removed) console.log(`removed ${key} (merged into the distribution account)`);
  for (const key of busy) console.log(`still in use, not removed yet: ${key}`);
  if (busy.length > 0) process.exitCode = 3;
});
