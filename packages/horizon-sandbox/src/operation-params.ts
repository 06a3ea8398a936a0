import type { Request } from 'express';
import { badRequest, type Problem } from './problems';

/** The parameters Horizon's operation lists take besides paging. */
export interface OperationParams {
  /** include_failed (default false): also the operations of failed transactions. */
  includeFailed: boolean;
  /** join=transactions: each record embeds its transaction resource as `transaction`. */
  joinTransactions: boolean;
}

// gorilla/schema decodes a bool with Go's strconv.ParseBool
const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE = new Set(['', '0', 'f', 'F', 'FALSE', 'false', 'False']);

/** Checked as Horizon's OperationsQuery is, with its messages. */
export function parseOperationParams(req: Request): OperationParams | Problem {
  const includeFailed = req.query.include_failed ?? '';
  const join = req.query.join ?? '';
  if (typeof includeFailed !== 'string' || !(TRUE.has(includeFailed) || FALSE.has(includeFailed))) {
    return badRequest('include_failed', 'Filter should be true or false');
  }
  if (join !== '' && join !== 'transactions') return badRequest('join', 'Accepted values: transactions');
  return { includeFailed: TRUE.has(includeFailed), joinTransactions: join === 'transactions' };
}
