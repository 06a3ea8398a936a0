import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { Account, Operation, TimeoutInfinite, TransactionBuilder } from '@stellar/stellar-sdk';
import { isAccountId } from './account-ids';
import type { Envelope } from './apply-transaction';
import { faultControlRouter } from './faults/fault-control.routes';
import type { FaultInjector } from './faults/fault-injector';
import type { ReadSides } from './faults/read-sides';
import { feeStats } from './fee-stats';
import {
  accountResource,
  ledgerResource,
  operationResource,
  rootResource,
  transactionResource,
} from './horizon-resources';
import { historyBounds } from './horizon-retention';
import { answeringFrom } from './latest-ledger-header';
import { LedgerClosedError, type LedgerClock } from './ledger-clock';
import { FEE_STATS_LEDGERS } from './ledger-history';
import type { LedgerReadView } from './ledger-read-view';
import type { LedgerState } from './ledger-state';
import { parseOperationParams } from './operation-params';
import { isProblem, pageResource, parsePageQuery } from './paging';
import {
  badRequest,
  internalError,
  notFound,
  sendProblem,
  serviceUnavailable,
  transactionMalformed,
} from './problems';
import type { EnvelopeFactory } from './sandbox-ledger';
import { submitWithFaults, submitWithoutFaults } from './transaction-submission';

export interface RouterDependencies {
  /** Core: where submissions apply. */
  state: LedgerState;
  clock: LedgerClock;
  /** Horizon's read sides, which may lag behind core; every read route answers from one of them. */
  readSides: ReadSides;
  faults: FaultInjector;
  networkPassphrase: string;
  /** Ledgers of history Horizon keeps (HISTORY_RETENTION_COUNT); undefined: all of it. */
  horizonRetentionLedgers?: number;
}

/** What friendbot gives a new account, as on testnet. */
const FRIENDBOT_STARTING_BALANCE = '10000';
const MAX_BODY = '1mb';
const INVALID_ACCOUNT_ID = badRequest('account_id', 'Account ID must start with `G` and contain 56 alphanum characters');
const INVALID_HASH = badRequest('tx_id', 'Transaction hash must be a hex-encoded, lowercase SHA-256 hash');
const INVALID_OPERATION_ID = badRequest('id', 'Operation ID must be an integer higher than 0');

/** Absolute URL of the router's mount point, for the `_links` Horizon puts in every resource. */
const baseUrl = (req: Request) => `${req.protocol}://${req.get('host') ?? 'localhost'}${req.baseUrl}`;

export function createHorizonRouter(dependencies: RouterDependencies): Router {
  const { state, readSides, networkPassphrase, horizonRetentionLedgers } = dependencies;
  const router = express.Router();
  /** The history a read side still holds; older records are gone from every answer. */
  const boundsOf = (view: LedgerReadView) => historyBounds(view, horizonRetentionLedgers);
  const elderOf = (view: LedgerReadView) => boundsOf(view).elderLedger;
  // every answer names a read side's latest ledger, 400s and 404s too; a read route then names the
  // one it answered from. Peeking takes no turn: under split-reads each answer takes one, in view().
  router.use((_req, res, next) => {
    answeringFrom(res, readSides.peekView());
    next();
  });
  router.use(express.urlencoded({ extended: false, limit: MAX_BODY }));
  router.use(express.json({ limit: MAX_BODY }));

  router.get('/', (req, res) => {
    // core_latest_ledger is core's own: during an ingestion lag it runs ahead of history, as on Horizon
    const view = answeringFrom(res, readSides.view());
    res.json(rootResource(view.latest, elderOf(view), state.latest.sequence, networkPassphrase, baseUrl(req)));
  });

  router.get('/accounts/:id', (req, res) => {
    const id = req.params.id;
    if (!isAccountId(id)) return sendProblem(res, INVALID_ACCOUNT_ID);
    const account = answeringFrom(res, readSides.view()).account(id);
    if (!account) return sendProblem(res, notFound());
    res.json(accountResource(account, baseUrl(req)));
  });

  // the operations of successful transactions that move assets (create_account, payments, path
  // payments, account_merge), in the shape /operations gives them
  router.get('/accounts/:id/payments', (req, res) => {
    const id = req.params.id;
    if (!isAccountId(id)) return sendProblem(res, INVALID_ACCOUNT_ID);
    const params = parseOperationParams(req);
    if (isProblem(params)) return sendProblem(res, params);
    const view = answeringFrom(res, readSides.view());
    const query = parsePageQuery(req, boundsOf(view));
    if (isProblem(query)) return sendProblem(res, query);
    const base = baseUrl(req);
    const records = view
      .paymentsFor(id, query)
      .flatMap((payment) => view.operation(BigInt(payment.id)) ?? [])
      .map((record) => operationResource(record, base, params.joinTransactions));
    res.json(pageResource(`${base}/accounts/${id}/payments`, query, records, req));
  });

  router.get('/operations', (req, res) => {
    listOperations(req, res, `${baseUrl(req)}/operations`);
  });

  router.get('/accounts/:id/operations', (req, res) => {
    const id = req.params.id;
    if (!isAccountId(id)) return sendProblem(res, INVALID_ACCOUNT_ID);
    listOperations(req, res, `${baseUrl(req)}/accounts/${id}/operations`, id);
  });

  router.get('/operations/:id', (req, res) => {
    const params = parseOperationParams(req);
    if (isProblem(params)) return sendProblem(res, params);
    if (!/^\d+$/.test(req.params.id) || BigInt(req.params.id) >= 2n ** 63n) return sendProblem(res, INVALID_OPERATION_ID);
    const view = answeringFrom(res, readSides.view());
    const record = view.operation(BigInt(req.params.id));
    if (!record || record.transaction.ledger < elderOf(view)) return sendProblem(res, notFound());
    res.json(operationResource(record, baseUrl(req), params.joinTransactions));
  });

  /** GET /operations and an account's: one page and its Latest-Ledger from the same read side. */
  function listOperations(req: Request, res: Response, href: string, account?: string): void {
    const params = parseOperationParams(req);
    if (isProblem(params)) return sendProblem(res, params);
    const view = answeringFrom(res, readSides.view());
    const query = parsePageQuery(req, boundsOf(view));
    if (isProblem(query)) return sendProblem(res, query);
    const base = baseUrl(req);
    const records = view
      .operations({ ...query, includeFailed: params.includeFailed, ...(account === undefined ? {} : { account }) })
      .map((record) => operationResource(record, base, params.joinTransactions));
    res.json(pageResource(href, query, records, req));
  }

  router.get('/transactions/:hash', (req, res) => {
    const hash = req.params.hash.toLowerCase();
    if (!/^[0-9a-f]{64}$/.test(hash)) return sendProblem(res, INVALID_HASH);
    // a lookup by hash may reach another instance than the other reads (the split fault)
    const view = answeringFrom(res, readSides.lookupView());
    const tx = view.transaction(hash);
    if (!tx || tx.ledger < elderOf(view)) return sendProblem(res, notFound());
    res.json(transactionResource(tx, baseUrl(req), hash));
  });

  router.post('/transactions', async (req, res) => {
    const body: unknown = req.body;
    const text =
      body && typeof body === 'object' && 'tx' in body && typeof body.tx === 'string' ? body.tx : undefined;
    if (!text) return sendProblem(res, badRequest('tx', 'tx: required, a base64 TransactionEnvelope'));
    let envelope: Envelope;
    try {
      envelope = TransactionBuilder.fromXDR(text, networkPassphrase);
    } catch {
      return sendProblem(res, transactionMalformed(text));
    }
    await submitWithFaults(dependencies, res, baseUrl(req), envelope);
  });

  router.get('/fee_stats', (_req, res) => {
    const view = answeringFrom(res, readSides.view());
    const ledgers = view.ledgers({ order: 'desc', limit: FEE_STATS_LEDGERS });
    res.json(feeStats(view.recentTransactions(), ledgers));
  });

  router.get('/ledgers', (req, res) => {
    const view = answeringFrom(res, readSides.view());
    const query = parsePageQuery(req, boundsOf(view));
    if (isProblem(query)) return sendProblem(res, query);
    const base = baseUrl(req);
    const records = view.ledgers(query).map((ledger) => ledgerResource(ledger, base));
    res.json(pageResource(`${base}/ledgers`, query, records, req));
  });

  router.get('/ledgers/:sequence', (req, res) => {
    const view = answeringFrom(res, readSides.view());
    const ledger = /^\d+$/.test(req.params.sequence) ? view.ledger(Number(req.params.sequence)) : undefined;
    if (!ledger || ledger.sequence < elderOf(view)) return sendProblem(res, notFound());
    res.json(ledgerResource(ledger, baseUrl(req)));
  });

  router.all('/friendbot', async (req, res) => {
    const addr = typeof req.query.addr === 'string' ? req.query.addr : '';
    if (!isAccountId(addr)) return sendProblem(res, badRequest('addr', 'addr: must be a G... account id'));
    await submitWithoutFaults(dependencies, res, baseUrl(req), friendbotFunding(addr, networkPassphrase));
  });

  // sandbox-only, not a Horizon route: the fault switch for a sandbox running in another process
  router.use('/_sandbox/faults', faultControlRouter(dependencies.faults));

  router.use((_req, res) => sendProblem(res, notFound()));

  router.use((error: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    const status = (error as { status?: unknown }).status;
    if (status === 400 || status === 413 || status === 415) {
      return sendProblem(res, { ...badRequest('body', 'the request body could not be read'), status });
    }
    if (error instanceof LedgerClosedError) return sendProblem(res, serviceUnavailable(error.message));
    sendProblem(res, internalError());
  });

  return router;
}

/** Built when its ledger closes, so that several fundings in one ledger take consecutive root sequences. */
function friendbotFunding(destination: string, networkPassphrase: string): EnvelopeFactory {
  return (state) => {
    const root = state.rootKeypair;
    const rootAccount = state.accounts.get(root.publicKey());
    if (!rootAccount) throw new Error('the root account is missing');
    const tx = new TransactionBuilder(new Account(root.publicKey(), rootAccount.sequence.toString()), {
      fee: '100',
      networkPassphrase,
    })
      .addOperation(Operation.createAccount({ destination, startingBalance: FRIENDBOT_STARTING_BALANCE }))
      .setTimeout(TimeoutInfinite)
      .build();
    tx.sign(root);
    return tx;
  };
}

