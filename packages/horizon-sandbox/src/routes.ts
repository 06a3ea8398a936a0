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
  paymentResource,
  rootResource,
  transactionResource,
} from './horizon-resources';
import { answeringFrom } from './latest-ledger-header';
import { LedgerClosedError, type LedgerClock } from './ledger-clock';
import { FEE_STATS_LEDGERS } from './ledger-history';
import type { LedgerState } from './ledger-state';
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
}

/** What friendbot gives a new account, as on testnet. */
const FRIENDBOT_STARTING_BALANCE = '10000';
const MAX_BODY = '1mb';
const INVALID_ACCOUNT_ID = badRequest('account_id', 'Account ID must start with `G` and contain 56 alphanum characters');
const INVALID_HASH = badRequest('tx_id', 'Transaction hash must be a hex-encoded, lowercase SHA-256 hash');

/** Absolute URL of the router's mount point, for the `_links` Horizon puts in every resource. */
const baseUrl = (req: Request) => `${req.protocol}://${req.get('host') ?? 'localhost'}${req.baseUrl}`;

export function createHorizonRouter(dependencies: RouterDependencies): Router {
  const { state, readSides, networkPassphrase } = dependencies;
  const router = express.Router();
  // every answer names the read side's latest ledger; a read route names the one it answered from
  router.use((_req, res, next) => {
    answeringFrom(res, readSides.view());
    next();
  });
  router.use(express.urlencoded({ extended: false, limit: MAX_BODY }));
  router.use(express.json({ limit: MAX_BODY }));

  router.get('/', (req, res) => {
    // core_latest_ledger is core's own: during an ingestion lag it runs ahead of history, as on Horizon
    res.json(rootResource(answeringFrom(res, readSides.view()).latest, state.latest.sequence, networkPassphrase, baseUrl(req)));
  });

  router.get('/accounts/:id', (req, res) => {
    const id = req.params.id;
    if (!isAccountId(id)) return sendProblem(res, INVALID_ACCOUNT_ID);
    const account = answeringFrom(res, readSides.view()).account(id);
    if (!account) return sendProblem(res, notFound());
    res.json(accountResource(account, baseUrl(req)));
  });

  router.get('/accounts/:id/payments', (req, res) => {
    const id = req.params.id;
    if (!isAccountId(id)) return sendProblem(res, INVALID_ACCOUNT_ID);
    const query = parsePageQuery(req);
    if (isProblem(query)) return sendProblem(res, query);
    const base = baseUrl(req);
    const records = answeringFrom(res, readSides.view()).paymentsFor(id, query).map((payment) => paymentResource(payment, base));
    res.json(pageResource(`${base}/accounts/${id}/payments`, query, records));
  });

  router.get('/transactions/:hash', (req, res) => {
    const hash = req.params.hash.toLowerCase();
    if (!/^[0-9a-f]{64}$/.test(hash)) return sendProblem(res, INVALID_HASH);
    // a lookup by hash may reach another instance than the other reads (the split fault)
    const tx = answeringFrom(res, readSides.lookupView()).transaction(hash);
    if (!tx) return sendProblem(res, notFound());
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
    const query = parsePageQuery(req);
    if (isProblem(query)) return sendProblem(res, query);
    const base = baseUrl(req);
    const records = answeringFrom(res, readSides.view()).ledgers(query).map((ledger) => ledgerResource(ledger, base));
    res.json(pageResource(`${base}/ledgers`, query, records));
  });

  router.get('/ledgers/:sequence', (req, res) => {
    const view = answeringFrom(res, readSides.view());
    const ledger = /^\d+$/.test(req.params.sequence) ? view.ledger(Number(req.params.sequence)) : undefined;
    if (!ledger) return sendProblem(res, notFound());
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

