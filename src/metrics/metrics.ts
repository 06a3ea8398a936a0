import type { RequestHandler } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { HistoryWindowReading } from '../ledger/history-window';
import type { TreasuryReading } from '../ledger/treasury';
import { registerEventLoopDelay } from './event-loop-delay';
import { PAYMENT_STATUSES, type PaymentAlerts, type PaymentStatus } from './payment-counts';

/** What the scrape reads from the rest of the service, installed once those parts exist. */
export interface MetricsSources {
  /** Payment records per status, from the database. */
  paymentsByStatus(): Promise<Record<PaymentStatus, number>>;
  /** What operators are alerted on about payments (README: "Payment alerts"). */
  paymentAlerts(): Promise<PaymentAlerts>;
  /** Jobs waiting in the distribution account's submitter; undefined while the ledger is not ready. */
  distributionQueueDepth(): number | undefined;
  /** What the distribution account can still pay for; undefined while the ledger cannot say. */
  treasury(): Promise<TreasuryReading | undefined>;
  /** The ledger API's history window against the journal's open envelopes; undefined while it cannot be read. */
  historyWindow(): Promise<HistoryWindowReading | undefined>;
  /** The ledger follower: ledgers between the API's newest and the last one recorded (undefined when it is off or either cannot be read). */
  followLag(): Promise<number | undefined>;
  /** Gaps in the followed history not resolved yet. */
  followGaps(): Promise<number>;
  /** For each waiting state of withdrawals, the age in seconds of its oldest (README: "Cash-out (withdrawals)"). */
  withdrawalsWaiting(): Promise<{ status: string; seconds: number }[]>;
  /** Webhook deliveries not delivered (pending, failed) and the oldest pending's age (docs/events.md). */
  webhookDeliveries(): Promise<{ pending: number; failed: number; oldestPendingSeconds: number }>;
  /** Event streams open on this process. */
  eventStreams(): number;
}

let processRegistry: Registry | undefined;

/**
 * Node.js process metrics (CPU, memory, event loop lag, GC) describe the process, not one app:
 * one registry per process, shared by every app in it (tests build many apps in one process).
 * prom-client's nodejs_eventloop_lag_* stay as they were (dashboards may read them), but they
 * sample every 10 ms, include those 10 ms and reset at every scrape; event_loop_delay_seconds
 * is the loop's delay to judge (event-loop-delay.ts).
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
    registerEventLoopDelay(processRegistry);
  }
  return processRegistry;
}

/**
 * The Prometheus metrics of one app instance, in its own registry (never prom-client's global
 * one, so apps built side by side never share or clash over series).
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly exposed: Registry;
  private readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  private readonly seriesByKey = new Map<string, { observe(value: number): void }>();
  private readonly ledgerSubmissions: Counter<'result'>;
  private readonly signupWallets: Counter<'outcome'>;
  private readonly feesPaid: Counter;
  private readonly feeBumps: Counter;
  private sources: MetricsSources | undefined;

  constructor() {
    const registers = [this.registry];
    this.httpDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.ledgerSubmissions = new Counter({
      name: 'ledger_submissions_total',
      help: 'Ledger transaction submissions by result code (tx_success, a Stellar result code, or unavailable)',
      labelNames: ['result'],
      registers,
    });
    this.signupWallets = new Counter({
      name: 'signup_wallets_total',
      help: 'Signups by wallet outcome: created (a funded ledger account), refused_budget (SIGNUP_WALLETS_PER_HOUR spent)',
      labelNames: ['outcome'],
      registers,
    });
    const payments: Gauge<'status'> = new Gauge({
      name: 'payments_by_status',
      help: 'Payment records by status, read from the database at scrape time (paid and minting = paid, not yet minted)',
      labelNames: ['status'],
      registers,
      collect: async () => {
        if (!this.sources) return;
        try {
          const counts = await this.sources.paymentsByStatus();
          for (const status of PAYMENT_STATUSES) payments.set({ status }, counts[status]);
        } catch {
          // Database unreachable: no payment series in this scrape rather than stale numbers or a failed scrape.
          payments.reset();
        }
      },
    });
    // One reading per scrape: prom-client starts every metric's collect in registration order
    // before awaiting any, so the first gauge starts the read and the other two await the same one.
    let alertReading: Promise<PaymentAlerts | undefined> = Promise.resolve(undefined);
    const alertGauge = (name: string, help: string, key: keyof PaymentAlerts, readsFirst = false): Gauge => {
      const gauge: Gauge = new Gauge({
        name,
        help,
        registers,
        collect: async () => {
          if (readsFirst) alertReading = this.sources ? this.sources.paymentAlerts().catch(() => undefined) : Promise.resolve(undefined);
          const reading = await alertReading;
          // Database unreachable: no series rather than stale numbers or a failed scrape.
          if (reading) gauge.set(reading[key]);
          else gauge.reset();
        },
      });
      return gauge;
    };
    alertGauge('payments_paid_unminted_oldest_seconds', 'Age in seconds of the oldest payment paid and not yet minted (alert past a threshold)', 'paidUnmintedOldestSeconds', true);
    alertGauge('payments_unchecked', 'Intents the provider sweep stopped asking about without a final answer from the provider', 'initializedUnchecked');
    alertGauge('webhook_events_set_aside', 'Provider events set aside for an operator after their last attempt', 'webhookEventsSetAside');
    alertGauge('payment_reversals_open_oldest_seconds', 'Age in seconds of the oldest refund or lost chargeback whose tokens are not taken back or owed yet', 'reversalOpenOldestSeconds');
    alertGauge('payment_debt_stroops', 'Tokens buyers owe (in stroops): reversals their wallets could not give back, less what their purchases settled', 'debtStroops');
    const queueDepth: Gauge = new Gauge({
      name: 'ledger_submitter_queue_depth',
      help: "Jobs waiting in the distribution account's submitter (mints, activations); 0 until the ledger is ready",
      registers,
      collect: () => {
        queueDepth.set(this.sources?.distributionQueueDepth() ?? 0);
      },
    });
    this.feesPaid = new Counter({
      name: 'ledger_fees_paid_stroops_total',
      help: 'Stroops the network charged the distribution account (the fee source of every fee bump), for envelopes this process saw applied',
      registers,
    });
    this.feeBumps = new Counter({
      name: 'ledger_fee_bumps_total',
      help: 'Envelopes whose fee bid was raised because they kept waiting (surge pricing)',
      registers,
    });
    this.treasuryGauges(registers);
    const beyond: Gauge = new Gauge({
      name: 'ledger_envelopes_beyond_retention',
      help: "Submitted envelopes whose possible ledgers left the ledger API's history window: never judged by absence, an operator settles them (npm run ledger:audit)",
      registers,
      collect: async () => {
        const reading = await this.sources?.historyWindow();
        if (reading) beyond.set(reading.envelopesBeyond);
        else beyond.reset();
      },
    });
    const followLag: Gauge = new Gauge({
      name: 'ledger_follow_lag_ledgers',
      help: "Ledgers between the ledger API's newest (read at scrape time) and the last one the follower recorded, whichever process follows (CONTRACT 12); absent when it is off or cannot be read",
      registers,
      collect: async () => {
        const lag = await this.sources?.followLag();
        if (lag !== undefined) followLag.set(lag);
        else followLag.reset();
      },
    });
    const followGaps: Gauge = new Gauge({
      name: 'ledger_follow_gaps',
      help: 'Stretches of ledgers the follower could not read (the API no longer held them): movements may be missing from the records until an operator resolves them (npm run ledger:audit)',
      registers,
      collect: async () => {
        const gaps = await this.sources?.followGaps();
        if (gaps !== undefined) followGaps.set(gaps);
      },
    });
    const withdrawals: Gauge<'status'> = new Gauge({
      name: 'withdrawals_waiting_oldest_seconds',
      help: 'Age in seconds of the oldest withdrawal in each waiting state (waiting_float: the provider balance is short; awaiting_otp: an admin must finalize)',
      labelNames: ['status'],
      registers,
      collect: async () => {
        withdrawals.reset();
        const reading = await this.sources?.withdrawalsWaiting().catch(() => undefined);
        for (const { status, seconds } of reading ?? []) withdrawals.set({ status }, seconds);
      },
    });
    const deliveries: Gauge<'status'> = new Gauge({
      name: 'webhook_deliveries',
      help: 'Webhook deliveries not delivered, by status: pending (waiting for an attempt or a retry) and failed (every retry spent: replay re-sends; docs/events.md)',
      labelNames: ['status'],
      registers,
      collect: async () => {
        const reading = await this.sources?.webhookDeliveries().catch(() => undefined);
        if (!reading) return deliveries.reset();
        deliveries.set({ status: 'pending' }, reading.pending);
        deliveries.set({ status: 'failed' }, reading.failed);
        oldestDelivery.set(reading.oldestPendingSeconds);
      },
    });
    const oldestDelivery = new Gauge({
      name: 'webhook_delivery_oldest_pending_seconds',
      help: "Age of the oldest pending webhook delivery (0: none): grows while an endpoint keeps failing or the queue's workers are down",
      registers,
    });
    const streams: Gauge = new Gauge({
      name: 'event_streams_open',
      help: 'GET /api/users/events streams open on this process',
      registers,
      collect: () => {
        const open = this.sources?.eventStreams();
        if (open !== undefined) streams.set(open);
      },
    });
    this.exposed = Registry.merge([processMetrics(), this.registry]);
  }

  /** Installs the scrape-time readers (they need parts built after the metrics). */
  setSources(sources: MetricsSources): void {
    this.sources = sources;
  }

  /** Counts one ledger submission outcome (the sender's `result` event). */
  countLedgerResult(code: string): void {
    this.ledgerSubmissions.inc({ result: code });
  }

  /** Adds what the network charged for one applied envelope (a metric, so a float is fine: exact up to 2^53 stroops). */
  countFeePaid(stroops: bigint): void {
    this.feesPaid.inc(Number(stroops));
  }

  countFeeBump(): void {
    this.feeBumps.inc();
  }

  /**
   * The distribution account's runway, read at scrape time: its XLM and token balances, the
   * reserves it sponsors, the signups its XLM still covers, and an alert when that is below
   * MIN_SIGNUPS_LEFT. No series while the ledger cannot be read (rather than stale numbers).
   */
  private treasuryGauges(registers: Registry[]): void {
    const gauge = (name: string, help: string, value: (r: TreasuryReading) => number) => {
      const g: Gauge = new Gauge({
        name,
        help,
        registers,
        collect: async () => {
          const reading = await this.sources?.treasury();
          if (reading) g.set(value(reading));
          else g.reset();
        },
      });
    };
    gauge('distribution_xlm_stroops', "The distribution account's XLM balance, in stroops", (r) => Number(r.xlmStroops));
    gauge('distribution_token_stroops', "The distribution account's token balance, in stroops", (r) => Number(r.tokenStroops));
    gauge('distribution_reserves_sponsored', 'Reserves the distribution account sponsors for wallets and channels (num_sponsoring)', (r) => r.reservesSponsored);
    gauge('distribution_signups_left', "New wallets the distribution account's spendable XLM still covers", (r) => Number(r.signupsLeft));
    gauge('distribution_low_funds', '1 when the signups left are fewer than MIN_SIGNUPS_LEFT (alert on it), else 0', (r) => (r.low ? 1 : 0));
  }

  /** Counts one signup's wallet: created, or refused because the hourly budget was spent. */
  countSignupWallet(outcome: 'created' | 'refused_budget'): void {
    this.signupWallets.inc({ outcome });
  }

  /** One answered request's time, labelled by the route pattern that answered it (src/middleware/request-layer.ts calls it). */
  readonly observeRequest = (method: string, route: string, status: number, seconds: number): void => {
    this.requestSeries(method, route, status).observe(seconds);
  };

  /**
   * The histogram's series for one method, route and status, looked up once: prom-client checks
   * and hashes the label object on every observe otherwise. Bounded like the series themselves
   * (route patterns, never raw URLs).
   */
  private requestSeries(method: string, route: string, status: number) {
    const key = `${method} ${status} ${route}`;
    let series = this.seriesByKey.get(key);
    if (!series) {
      series = this.httpDuration.labels({ method, route, status: String(status) });
      this.seriesByKey.set(key, series);
    }
    return series;
  }

  /** GET /metrics: this app's metrics and the process metrics, in the Prometheus text format. */
  readonly handler: RequestHandler = async (_req, res) => {
    res.setHeader('Content-Type', this.exposed.contentType);
    res.setHeader('Cache-Control', 'no-store');
    res.send(await this.exposed.metrics());
  };
}
