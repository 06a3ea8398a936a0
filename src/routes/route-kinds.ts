import type { Response } from 'express';
import { z } from 'zod';
import { paginationQuery } from '../http/schemas';
import { defineRoute, type ValidatedRequest } from './define-route';
import type { Access, RouteDef } from './route-table';

/**
 * The kinds of row that recur across the route tables, each with its policy in one place. Each
 * builds a defineRoute row, so handlers stay typed from their schemas.
 */

type Schema = z.ZodType | undefined;

/** How a paged list documents its total. */
const TOTAL_COUNT_HEADER = { 'X-Total-Count': { description: 'Total number of items; the body holds one page', schema: { type: 'integer' as const, minimum: 0 } } };

export interface PagedRouteDef<Params extends Schema, Row, Item extends z.ZodType> {
  path: string;
  access: Access;
  summary: string;
  params?: Params;
  /** The schema of one item of the answered array. */
  item: Item;
  /** One page of rows and the total count. */
  fetch: (
    page: { limit: number; offset: number },
    req: ValidatedRequest<undefined, Params, typeof paginationQuery>,
    res: Response,
  ) => Promise<{ items: Row[]; total: number }>;
  toItem: (row: Row) => z.output<Item>;
}

/**
 * A paged list: a GET taking `?limit&offset` (paginationQuery), answering one page as a JSON
 * array with the total in X-Total-Count.
 */
export function pagedRoute<Row, Item extends z.ZodType, Params extends Schema = undefined>(row: PagedRouteDef<Params, Row, Item>): RouteDef {
  const { path, access, summary, params, item, fetch, toItem } = row;
  return defineRoute<undefined, Params, typeof paginationQuery>({
    method: 'get',
    path,
    access,
    summary,
    request: params ? { params, query: paginationQuery } : { query: paginationQuery },
    response: { status: 200, schema: z.array(item), headers: TOTAL_COUNT_HEADER },
    handler: async (req, res) => {
      const { limit, offset } = req.query;
      const { items, total } = await fetch({ limit, offset }, req, res);
      res.setHeader('X-Total-Count', String(total));
      res.json(items.map(toItem));
    },
  });
}
