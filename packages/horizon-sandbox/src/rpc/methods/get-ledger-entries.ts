import { xdr } from '@stellar/stellar-sdk';
import { z } from 'zod';
import type { RpcDependencies } from '../context';
import { invalidParams } from '../json-rpc';
import { findEntry } from '../ledger-entries';
import { parseParams, xdrFormat } from '../params';

/** stellar-rpc's getLedgerEntriesMaxKeys. */
const MAX_KEYS = 200;

const schema = z.object({ keys: z.array(z.string(), { error: 'required, an array of base64 LedgerKeys' }), xdrFormat });

/**
 * getLedgerEntries: the entries that exist, in the order of the keys asked for, each with the key as
 * given, its LedgerEntryData and the ledger that last changed it. Read from the read side (a lag
 * shows the accounts as they were), in one view so the answer is one ledger's state.
 */
export function getLedgerEntries(params: unknown, { readSides }: RpcDependencies) {
  const { keys } = parseParams(params, schema);
  if (keys.length > MAX_KEYS) throw invalidParams(`key count (${keys.length}) exceeds maximum supported (${MAX_KEYS})`);
  const ledgerKeys = keys.map((text, index) => {
    let key: xdr.LedgerKey;
    try {
      key = xdr.LedgerKey.fromXDR(text, 'base64');
    } catch {
      throw invalidParams(`cannot unmarshal key value ${text} at index ${index}`);
    }
    if (key.switch().name === 'ttl') throw invalidParams('ledger ttl entries cannot be queried directly');
    return { text, key };
  });

  const view = readSides.view();
  const entries = ledgerKeys.flatMap(({ text, key }) => {
    const found = findEntry(view, key);
    return found ? [{ key: text, xdr: found.data.toXDR('base64'), lastModifiedLedgerSeq: found.lastModifiedLedgerSeq }] : [];
  });
  return { entries, latestLedger: view.latest.sequence };
}
