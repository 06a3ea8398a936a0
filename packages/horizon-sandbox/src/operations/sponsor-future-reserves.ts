import type { Operation } from '@stellar/stellar-sdk';
import { OP_SUCCESS, type OperationContext } from './operation-context';

/**
 * begin_sponsoring_future_reserves and end_sponsoring_future_reserves (CAP-33): between the two,
 * the reserves of every entry the sponsored account creates are paid by the sponsor. The pair must
 * close within the transaction; apply-transaction fails it with tx_bad_sponsorship otherwise.
 */

export function checkBeginSponsoring(op: Operation.BeginSponsoringFutureReserves, source: string): string {
  return op.sponsoredId === source ? 'op_malformed' : OP_SUCCESS;
}

/** The source becomes the sponsor of `sponsoredId`, which need not exist yet (it may be created next). */
export function applyBeginSponsoring(
  op: Operation.BeginSponsoringFutureReserves,
  { source, sponsorships }: OperationContext,
): string {
  if (sponsorships.isSponsored(op.sponsoredId)) return 'op_already_sponsored';
  // no chains: a sponsor may not be sponsored itself, and a sponsored account may not sponsor
  if (sponsorships.isSponsored(source)) return 'op_recursive';
  if (sponsorships.isSponsoring(op.sponsoredId)) return 'op_recursive';
  sponsorships.begin(source, op.sponsoredId);
  return OP_SUCCESS;
}

/** Its source is the sponsored account, so the sponsored side signs its agreement to the pair. */
export function applyEndSponsoring({ source, sponsorships }: OperationContext): string {
  return sponsorships.end(source) ? OP_SUCCESS : 'op_not_sponsored';
}
