import type { Response } from 'express';
import { z } from 'zod';
import { paginationQuery } from '../http/schemas';
import type { RateLimits } from '../middleware/rate-limit';
import { defineRoute, type Parsed, type TypedRouteDef, type ValidatedRequest } from './define-route';
import type { Access, RouteDef } from './route-table';

/**
 * The kinds of row that recur across the route tables, each with its policy in one place: a
 * paged list, an answer that is a message, a credential route. Each builds a defineRoute row, so
 * handlers stay typed from their schemas.
 */

type Schema = z.ZodType | undefined;

const messageSchema = z.object({ message: z.string() });

/** What a message route's action returns: the declared fields, or nothing when the message is all. */
type Answered<Fields extends z.ZodRawShape> = keyof Fields extends never ? void : z.output<z.ZodObject<Fields>>;

export type MessageRouteDef<Body extends Schema, Params extends Schema, Query extends Schema, Fields extends z.ZodRawShape> = Omit<
  TypedRouteDef<Body, Params, Query>,
  'response' | 'handler'
> & {
  /** 201 for a creation; 200 otherwise. */
  status?: 200 | 201;
  message: string;
  /** Fields answered beside the message, e.g. `{ token: z.string() }`. */
  fields?: Fields;
  act: (req: ValidatedRequest<Body, Params, Query>, res: Response) => Promise<Answered<Fields>>;
};

/**
 * A route that answers `{message, ...fields}`: the message fixed by the row, the fields from its
 * action. Only the declared fields are answered, so the documented schema is also all that leaves.
 */
export function messageRoute<
  Body extends Schema = undefined,
  Params extends Schema = undefined,
  Query extends Schema = undefined,
  Fields extends z.ZodRawShape = Record<never, never>,
>(row: MessageRouteDef<Body, Params, Query, Fields>): RouteDef {
  const { status = 200, message, fields, act, ...route } = row;
  return defineRoute<Body, Params, Query>({
    ...route,
    response: { status, schema: fields ? messageSchema.extend(fields) : messageSchema },
    handler: async (req, res) => {
      const result: Record<string, unknown> = (await act(req, res)) ?? {};
      const answer: Record<string, unknown> = { message };
      for (const field of Object.keys(fields ?? {})) answer[field] = result[field];
      res.status(status).json(answer);
    },
  });
}

export type CredentialRouteDef<Body extends z.ZodType, Fields extends z.ZodRawShape> = Pick<
  MessageRouteDef<Body, undefined, undefined, Fields>,
  'path' | 'summary' | 'status' | 'message' | 'fields' | 'errors'
> & {
  /** The route's own count of the credential rate limit, e.g. `users.login`. */
  rateLimit: string;
  body: Body;
  act: (body: Parsed<Body>, req: ValidatedRequest<Body, undefined, undefined>) => Promise<Answered<Fields>>;
};

/**
 * A route that takes credentials (a password, a reset token, an e-mail to write to): public, a
 * POST of its body schema, limited per client by the credential rate limit, answering a message.
 */
export function credentialRoute<Body extends z.ZodType, Fields extends z.ZodRawShape = Record<never, never>>(
  rateLimits: Pick<RateLimits, 'auth'>,
  row: CredentialRouteDef<Body, Fields>,
): RouteDef {
  const { rateLimit: limitName, body, act, ...answer } = row;
  return messageRoute<Body, undefined, undefined, Fields>({
    method: 'post',
    access: 'public',
    rateLimit: rateLimits.auth(limitName),
    request: { body },
    ...answer,
    act: (req) => act(req.body, req),
  });
}

/** How a paged list documents its total. */
const TOTAL_COUNT_HEADER = { 'X-Total-Count': { description: 'Total number of items; the body holds one page', schema: { type: 'integer' as const, minimum: 0 } } };

export interface PagedRouteDef<Params extends Schema, Row, Item extends z.ZodType, Query extends typeof paginationQuery = typeof paginationQuery> {
  path: string;
  access: Access;
  summary: string;
  params?: Params;
  /** The query: paginationQuery, or paginationQuery extended with the list's filters. */
  query?: Query;
  /** The schema of one item of the answered array. */
  item: Item;
  /** One page of rows and the total count; `page` is the validated query (limit, offset and any filters). */
  fetch: (page: z.output<Query>, req: ValidatedRequest<undefined, Params, Query>, res: Response) => Promise<{ items: Row[]; total: number }>;
  toItem: (row: Row) => z.output<Item>;
}

/**
 * A paged list: a GET taking `?limit&offset` (paginationQuery, plus the list's own filters),
 * answering one page as a JSON array with the total count in X-Total-Count.
 */
export function pagedRoute<Row, Item extends z.ZodType, Params extends Schema = undefined, Query extends typeof paginationQuery = typeof paginationQuery>(
  row: PagedRouteDef<Params, Row, Item, Query>,
): RouteDef {
  const { path, access, summary, params, item, fetch, toItem } = row;
  const query = (row.query ?? paginationQuery) as Query;
  return defineRoute<undefined, Params, Query>({
    method: 'get',
    path,
    access,
    summary,
    request: params ? { params, query } : { query },
    response: { status: 200, schema: z.array(item), headers: TOTAL_COUNT_HEADER },
    handler: async (req, res) => {
      const { items, total } = await fetch(req.query as z.output<Query>, req, res);
      res.setHeader('X-Total-Count', String(total));
      res.json(items.map(toItem));
    },
  });
}
