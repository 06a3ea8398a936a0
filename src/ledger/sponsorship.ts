import { Operation, type xdr } from '@stellar/stellar-sdk';

/**
 * Wraps operations so that `sponsor` pays the reserves they create for `sponsoredId` (CAP-33
 * sponsored reserves): a new wallet or channel account and its trustline cost the sponsor, not the
 * account, so the service never hands out XLM its users could withdraw. The sponsored account
 * signs the closing operation: nobody is sponsored without consenting.
 */
export function sponsored(sponsor: string, sponsoredId: string, operations: xdr.Operation[]): xdr.Operation[] {
  return [
    Operation.beginSponsoringFutureReserves({ sponsoredId, source: sponsor }),
    ...operations,
    Operation.endSponsoringFutureReserves({ source: sponsoredId }),
  ];
}
