import { TransactionBuilder } from '@stellar/stellar-sdk';
import { z } from 'zod';
import type { Envelope } from '../../apply-transaction';
import { refusal, type Acceptance } from '../../core-admission';
import { sequenceTaken } from '../../resubmission';
import { LedgerClosedError } from '../../ledger-clock';
import type { RpcDependencies, Exchange } from '../context';
import { INTERNAL_ERROR, RpcError, invalidParams } from '../json-rpc';
import { parseParams, xdrFormat } from '../params';
import { envelopeHashHex } from '../../envelope-hash';

const schema = z.object({ transaction: z.string({ error: 'required, a base64 TransactionEnvelope' }), xdrFormat });

/**
 * sendTransaction: core's answer at once (PENDING, DUPLICATE, TRY_AGAIN_LATER, or ERROR with the
 * TransactionResult), never the ledger's. A PENDING transaction applies when its ledger closes; the
 * client learns how from getTransaction. The fault plan draws here, as for Horizon's POST /transactions.
 */
export function sendTransaction(params: unknown, dependencies: RpcDependencies, exchange: Exchange) {
  const { clock, readSides, faults, networkPassphrase } = dependencies;
  const { transaction } = parseParams(params, schema);
  let envelope: Envelope;
  try {
    envelope = TransactionBuilder.fromXDR(transaction, networkPassphrase);
  } catch {
    throw invalidParams('invalid_xdr');
  }
  const fault = faults.draw();
  exchange.fault = fault;
  // as stellar-rpc, the ledger range is read before core gets the transaction
  const { latest } = readSides.view();
  const answer = (acceptance: Acceptance) => ({
    status: acceptance.status,
    hash: envelopeHashHex(envelope),
    latestLedger: latest.sequence,
    latestLedgerCloseTime: String(latest.closedAt),
    ...(acceptance.status === 'ERROR' ? { errorResultXdr: acceptance.errorResultXdr } : {}),
  });
  // refuse-503 never reaches core; try-again-later is core refusing it for now
  if (fault?.mode === 'refuse-503' || fault?.mode === 'try-again-later') return answer({ status: 'TRY_AGAIN_LATER' });
  // another client used the sequence number first: core refuses it, nothing applies
  if (fault?.mode === 'bad-seq') return answer(refusal(sequenceTaken(envelope)));

  let acceptance: Acceptance;
  try {
    acceptance = clock.accept(envelope);
  } catch (error) {
    if (error instanceof LedgerClosedError) throw new RpcError(INTERNAL_ERROR, 'could not submit transaction to stellar-core');
    throw error;
  }
  if (acceptance.status === 'PENDING') {
    // a lag or split hides its ledger from the read sides from the moment it closes
    void acceptance.outcome.then((result) => {
      if (result.status === 'included' && !result.resubmitted) readSides.applied(result.record.ledger, fault);
    });
  }
  return answer(acceptance);
}
