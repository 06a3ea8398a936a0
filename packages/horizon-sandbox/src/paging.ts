import type { Request } from 'express';
import type { PageQuery } from './ledger-history';
import { badRequest, type Problem } from './problems';

const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 200;

/** Horizon's cursor / limit / order query parameters, validated the way Horizon does. */
export function parsePageQuery(req: Request): PageQuery | Problem {
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
      // "now": ascending there is nothing after it yet; descending it means from the newest
      if (query.order === 'asc') query.cursor = 2n ** 63n - 1n;
    } else if (/^\d+$/.test(text)) {
      query.cursor = BigInt(text);
    } else {
      return badRequest('cursor', 'cursor: must be a paging token or "now"');
    }
  }
  return query;
}

export function isProblem(value: PageQuery | Problem): value is Problem {
  return 'status' in value;
}

/** A HAL collection page with next/prev links built from the page's first and last paging tokens. */
export function pageResource<T extends { paging_token: string }>(href: string, query: PageQuery, records: T[]) {
  const url = (cursor: string, order: string) => `${href}?cursor=${cursor}&limit=${query.limit}&order=${order}`;
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
