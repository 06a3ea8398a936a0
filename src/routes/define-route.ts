import type { NextFunction, Request, Response } from 'express';
import type { z } from 'zod';
import type { RouteDef } from './route-table';

type Schema = z.ZodType | undefined;

/** What a part of the request holds once its schema has parsed it; without a schema, nothing to read. */
export type Parsed<S extends Schema> = S extends z.ZodType ? z.output<S> : unknown;

/** The request a route's handler sees: body, params and query as its schemas parsed them. */
export type ValidatedRequest<Body extends Schema, Params extends Schema, Query extends Schema> = Request<
  Parsed<Params>,
  unknown,
  Parsed<Body>,
  Parsed<Query>
>;

/** A route-table row whose handler is typed from the row's own request schemas. */
export interface TypedRouteDef<Body extends Schema, Params extends Schema, Query extends Schema> extends Omit<RouteDef, 'request' | 'handler'> {
  request?: { body?: Body; params?: Params; query?: Query };
  handler: (req: ValidatedRequest<Body, Params, Query>, res: Response, next: NextFunction) => unknown;
}

/**
 * One row of a route table. `req.body`, `req.params` and `req.query` reach the handler as the
 * z.output of the row's schemas (buildRouter runs validate() first, which puts the parsed values
 * there), so handlers read their input without casts. An identity at run time: it is here so that
 * TypeScript infers the handler's input from the schemas written beside it.
 */
export function defineRoute<Body extends Schema = undefined, Params extends Schema = undefined, Query extends Schema = undefined>(
  route: TypedRouteDef<Body, Params, Query>,
): RouteDef {
  return route;
}
