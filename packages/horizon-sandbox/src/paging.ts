import type { Request } from 'express';
import type { HistoryBounds } from './horizon-retention';
import type { PageQuery } from './ledger-history';
import { badRequest, beforeHistory, type Problem } from './problems';
import { toid } from './transaction-record';

const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 200;
/** toid's masks: a cursor past everything a ledger can hold. */
const LAST_TRANSACTION = 0xfffff;
const LAST_OPERATION = 0xfff;

/**
 * Horizon's cursor / limit / order query parameters, validated the way Horizon does and placed in
 * the answering read side's history: "now" is the end of its latest ledger (toid.AfterLedger); a
 * descending page from before its elder ledger is gone (410 before_history), while an ascending one
 * simply starts at the elder ledger (Horizon's validateAndAdjustCursor).
 */
export function parsePageQuery(req: Request, { latestLedger, elderLedger }: HistoryBounds): PageQuery | Problem {
  const { cursor, limit, order } = req.query;
  if (order !== undefined && order !== 'asc' && order !== 'desc') {
    return badRequest('order', 'order: invalid value; must be "asc" or "desc"');
  }
  let parsedLimit = DEFAULT_LIMIT;
  if (limit !== undefined) {
    const text = String(limit);
    parsedLimit = Number(text);
    if (!/^\d+$/.test(text) || parsedLimit < 1 || parsedLimit > MAX_LIMIT) {
      return badRequest('limit', `limit: must be an integer between 1 and ${MAX_LIMIT}`);
    }
  }
  const query: PageQuery = { order: order ?? 'asc', limit: parsedLimit };
  if (cursor !== undefined && cursor !== '') {
    const text = String(cursor);
    if (text === 'now') {
      query.cursor = BigInt(toid(latestLedger, LAST_TRANSACTION, LAST_OPERATION));
    } else if (/^\d+$/.test(text) && BigInt(text) < 2n ** 63n) {
      query.cursor = BigInt(text);
    } else {
      return badRequest('cursor', 'cursor: must be a paging token or "now"');
    }
  }
  const elder = BigInt(toid(elderLedger, 0, 0));
  if (query.order === 'desc' && query.cursor !== undefined && query.cursor <= elder) return beforeHistory();
  if (elderLedger > 1) query.floor = elder;
  return query;
}

export function isProblem<T extends object>(value: T | Problem): value is Problem {
  return 'status' in value && 'type' in value;
}

/**
 * A HAL collection page with next/prev links built from the page's first and last paging tokens.
 * Like Horizon, the links keep the request's other query parameters (join, include_failed...) and
 * list them all in alphabetical order.
 */
export function pageResource<T extends { paging_token: string }>(href: string, query: PageQuery, records: T[], req?: Request) {
  const others: [string, string][] = [];
  for (const [name, value] of Object.entries(req?.query ?? {})) {
    if (name !== 'cursor' && name !== 'limit' && name !== 'order' && typeof value === 'string') others.push([name, value]);
  }
  const url = (cursor: string, order: string) => {
    const params = new URLSearchParams([...others, ['cursor', cursor], ['limit', String(query.limit)], ['order', order]]);
    params.sort();
    return `${href}?${params.toString()}`;
  };
  const current = query.cursor === undefined ? '' : query.cursor.toString();
  const first = records[0]?.paging_token ?? current;
  const last = records[records.length - 1]?.paging_token ?? current;
  const reverse = query.order === 'asc' ? 'desc' : 'asc';
  return {
    _links: {
      self: { href: url(current, query.order) },
      next: { href: url(last, query.order) },
      prev: { href: url(first, reverse) },
    },
    _embedded: { records },
  };
}
