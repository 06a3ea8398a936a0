import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { Exchange, RpcDependencies, RpcMethod } from './context';
import { deliverWithFault } from './fault-answers';
import {
  INTERNAL_ERROR,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  PARSE_ERROR,
  RpcError,
  errorAnswer,
  parseCall,
  resultAnswer,
  type RpcAnswer,
} from './json-rpc';
import { getEvents } from './methods/get-events';
import { getFeeStats } from './methods/get-fee-stats';
import { getLedgerEntries } from './methods/get-ledger-entries';
import { getTransaction } from './methods/get-transaction';
import { getTransactions } from './methods/get-transactions';
import { getHealth, getLatestLedger, getNetwork, getVersionInfo } from './methods/network-info';
import { sendTransaction } from './methods/send-transaction';

const MAX_BODY = '1mb';

/** The methods, by their JSON-RPC names. */
const METHODS: Record<string, RpcMethod> = {
  sendTransaction,
  getTransaction,
  getTransactions,
  getLedgerEntries,
  getEvents,
  getLatestLedger,
  getFeeStats,
  getHealth,
  getNetwork,
  getVersionInfo,
};

/**
 * Stellar RPC: JSON-RPC 2.0 over HTTP POST at the router's root, over the same ledger as the Horizon
 * routes. Every answer is HTTP 200, errors included, as stellar-rpc answers; a batch (an array of
 * requests) gets an array of answers; a notification (no id) gets none.
 */
export function createRpcRouter(dependencies: RpcDependencies): Router {
  const router = express.Router();
  // stellar-rpc reads the body as JSON whatever its content type says
  router.use(express.json({ limit: MAX_BODY, type: () => true, strict: false }));

  router.post('/', async (req, res) => {
    const exchange: Exchange = {};
    const body: unknown = req.body;
    let answer: RpcAnswer | RpcAnswer[] | undefined;
    if (Array.isArray(body)) {
      const answers = body.length === 0 ? [errorAnswer(null, INVALID_REQUEST, 'invalid request: empty batch')] : [];
      for (const member of body) {
        const one = await call(member, dependencies, exchange);
        if (one) answers.push(one);
      }
      answer = answers.length > 0 ? answers : undefined;
    } else {
      answer = await call(body, dependencies, exchange);
    }
    if (answer === undefined) {
      res.status(204).end();
      return;
    }
    await deliverWithFault(res, exchange.fault, answer);
  });

  router.use((error: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    const status = (error as { status?: unknown }).status;
    if (status === 413) return res.json(errorAnswer(null, INVALID_REQUEST, 'invalid request: body too large'));
    if (status === 400) return res.json(errorAnswer(null, PARSE_ERROR, 'parse error: the body is not JSON'));
    res.json(errorAnswer(null, INTERNAL_ERROR, 'internal error'));
  });

  return router;
}

/** One request: its answer, or undefined for a notification. A method's RpcError is its `error`. */
async function call(input: unknown, dependencies: RpcDependencies, exchange: Exchange): Promise<RpcAnswer | undefined> {
  const parsed = parseCall(input);
  if ('jsonrpc' in parsed) return parsed;
  const { id, method, params } = parsed;
  const handler = Object.hasOwn(METHODS, method) ? METHODS[method] : undefined;
  let answer: RpcAnswer;
  if (!handler) {
    answer = errorAnswer(id ?? null, METHOD_NOT_FOUND, `method not found: ${method}`);
  } else {
    try {
      answer = resultAnswer(id ?? null, await handler(params, dependencies, exchange));
    } catch (error) {
      if (!(error instanceof RpcError)) {
        process.emitWarning(`sandbox RPC ${method} failed: ${String(error)}`);
        answer = errorAnswer(id ?? null, INTERNAL_ERROR, 'internal error');
      } else {
        answer = errorAnswer(id ?? null, error.code, error.message);
      }
    }
  }
  return id === undefined ? undefined : answer;
}
