import { PROTOCOL_VERSION } from '../../ledger-rules';
import type { RpcDependencies } from '../context';
import { noParams, parseParams } from '../params';
import { ledgerRange } from '../retention';
import { ledgerCloseMetaXdr, ledgerHeaderXdr } from '../ledger-header-xdr';

/** What getVersionInfo reports: the sandbox is not a stellar-rpc build. */
const SANDBOX_VERSION = 'horizon-sandbox';

/**
 * getHealth: always healthy (the sandbox has no captive core to fall behind), with the retention
 * window it answers for. Close times are numbers here, unlike getTransaction's.
 */
export function getHealth(params: unknown, { readSides, retentionLedgers }: RpcDependencies) {
  parseParams(params, noParams);
  const { latest, oldest } = ledgerRange(readSides.view(), retentionLedgers);
  return {
    status: 'healthy',
    latestLedger: latest.sequence,
    latestLedgerCloseTime: latest.closedAt,
    oldestLedger: oldest.sequence,
    oldestLedgerCloseTime: oldest.closedAt,
    ledgerRetentionWindow: retentionLedgers,
  };
}

export function getNetwork(params: unknown, { networkPassphrase, friendbotUrl }: RpcDependencies) {
  parseParams(params, noParams);
  return { ...(friendbotUrl ? { friendbotUrl } : {}), passphrase: networkPassphrase, protocolVersion: PROTOCOL_VERSION };
}

/** getLatestLedger: the read side's latest ledger, its hash as `id`, with its header and close meta as XDR. */
export function getLatestLedger(params: unknown, { readSides }: RpcDependencies) {
  parseParams(params, noParams);
  const { latest } = readSides.view();
  return {
    id: latest.hash,
    protocolVersion: PROTOCOL_VERSION,
    sequence: latest.sequence,
    closeTime: String(latest.closedAt),
    headerXdr: ledgerHeaderXdr(latest).toXDR('base64'),
    metadataXdr: ledgerCloseMetaXdr(latest).toXDR('base64'),
  };
}

export function getVersionInfo(params: unknown) {
  parseParams(params, noParams);
  return {
    version: SANDBOX_VERSION,
    commitHash: '',
    buildTimestamp: '',
    captiveCoreVersion: '',
    protocolVersion: PROTOCOL_VERSION,
  };
}
