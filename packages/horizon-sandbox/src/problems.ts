import type { Response } from 'express';
import type { ResultCodes } from './ledger-history';

/**
 * Horizon answers every error with an RFC 7807 problem document whose `type` is a
 * stellar.org/horizon-errors URL; the SDK and its users key off `type`, `status` and `extras`.
 */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  extras?: Record<string, unknown>;
}

export function sendProblem(res: Response, problem: Problem): void {
  res.status(problem.status).type('application/problem+json').send(JSON.stringify(problem));
}

const typeUrl = (slug: string) => `https://stellar.org/horizon-errors/${slug}`;

export const notFound = (): Problem => ({
  type: typeUrl('not_found'),
  title: 'Resource Missing',
  status: 404,
  detail:
    'The resource at the url requested was not found.  This usually occurs for one of two reasons:  ' +
    'The url requested is not valid, or no data in our database could be found with the parameters provided.',
});

export const badRequest = (invalidField: string, reason: string): Problem => ({
  type: typeUrl('bad_request'),
  title: 'Bad Request',
  status: 400,
  detail: 'The request you sent was invalid in some way.',
  extras: { invalid_field: invalidField, reason },
});

export const transactionMalformed = (envelopeXdr: string): Problem => ({
  type: typeUrl('transaction_malformed'),
  title: 'Transaction Malformed',
  status: 400,
  detail:
    'Horizon could not decode the transaction envelope in this request. A transaction should be an XDR ' +
    'TransactionEnvelope struct encoded using base64.  The envelope read from this request is echoed in the ' +
    '`extras.envelope_xdr` field of this response for your convenience.',
  extras: { envelope_xdr: envelopeXdr },
});

export const transactionFailed = (extras: {
  envelope_xdr: string;
  result_xdr: string;
  result_codes: ResultCodes;
}): Problem => ({
  type: typeUrl('transaction_failed'),
  title: 'Transaction Failed',
  status: 400,
  detail:
    'The transaction failed when submitted to the stellar network. The `extras.result_codes` field on this ' +
    'response contains further details.  Descriptions of each code can be found at: ' +
    'https://developers.stellar.org/docs/data/apis/horizon/api-reference/errors/result-codes/transactions',
  extras,
});

export const serviceUnavailable = (detail: string): Problem => ({
  type: typeUrl('service_unavailable'),
  title: 'Service Unavailable',
  status: 503,
  detail,
});

export const internalError = (): Problem => ({
  type: typeUrl('server_error'),
  title: 'Internal Server Error',
  status: 500,
  detail: 'An error occurred while processing this request.',
});

/** Horizon's answer when a submission outlives its wait for the ledger (or for its own ingestion). */
export const timeout = (): Problem => ({
  type: typeUrl('timeout'),
  title: 'Timeout',
  status: 504,
  detail:
    'Your request timed out before completing. Please try your request again. If you are submitting a ' +
    'transaction make sure you are sending exactly the same transaction (with the same sequence number).',
});

/** A Horizon whose history is too far behind core refuses requests rather than serve stale data. */
export const staleHistory = (): Problem =>
  serviceUnavailable(
    'This horizon instance is configured to reject client requests when its historical database is too far ' +
      'behind the connected Stellar Core node. If you believe this is a mistake, please contact the server administrator.',
  );

/** Horizon's 410 for a page that would lie before the oldest ledger its history still holds (its elder ledger). */
export const beforeHistory = (): Problem => ({
  type: typeUrl('before_history'),
  title: 'Data Requested Is Before Recorded History',
  status: 410,
  detail:
    "This horizon instance is configured to only track a portion of the stellar network's latest history. " +
    'This request is asking for results prior to the recorded history known to this horizon instance.',
});
