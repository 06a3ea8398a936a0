import { sandboxControlPaths } from '@wallet/paystack-sandbox';
import { readDevSecrets } from '../../src/config/dev-secrets';
import { paymentProviderEndpoint } from '../../src/config/outside-systems';
import { withLoopDelay } from '../event-loop';
import { cpuByPartRow, cpuPerRequest, withMachineCpu, type MachineCpu } from '../machine-cpu';
import { expectStatus, mapLimit, request } from '../http';
import { LedgerWatch, type CloseCount } from '../ledger-watch';
import { summarize, type Sample } from '../load';
import { loadRow } from '../report';
import { adminToken, issueSupply, login, mintTo, signupBody, tokenBalance, username } from '../seed';
import { LedgerSandboxProcess, PaystackSandboxProcess, ServiceInstance } from '../service';
import type { Scenario, ScenarioContext, ScenarioResult } from './types';

/** Operations one wallet activation puts on the ledger. */
const ACTIVATION_OPERATIONS = 4;

/** Naira per payment; TOKENS_PER_NAIRA=1, so each verified payment mints this many tokens. */
const NAIRA = 100;
/** The service's default LEDGER_CHANNELS: how many one-operation transactions can share a ledger. */
const CHANNELS = 8;
const BURST_TIMEOUT_MS = 120_000;

interface Burst {
  samples: Sample[];
  seconds: number;
}

/** Fires every call at once (the point of the scenario), each bounded by its own timeout. */
async function burst<T>(items: readonly T[], call: (item: T) => Promise<number>): Promise<Burst> {
  const started = performance.now();
  const samples = await Promise.all(
    items.map(async (item): Promise<Sample> => {
      const t = performance.now();
      try {
        return { status: await call(item), ms: performance.now() - t };
      } catch {
        return { status: 'error', ms: performance.now() - t };
      }
    }),
  );
  return { samples, seconds: (performance.now() - started) / 1000 };
}

function closeRow(what: string, c: CloseCount, target: number, items: number): Record<string, string | number> {
  const txs = c.ledgers.reduce((a, l) => a + l.transactions, 0);
  return { what, items, 'closes (judged)': c.closes, 'by sequence': c.bySequence, 'by clock': c.byClock, target: `<= ${target}`, ledgers: c.ledgers.length, txs, ops: c.operations, 'ops/tx': txs ? (c.operations / txs).toFixed(1) : '-' };
}

type LedgerApiKind = 'rpc' | 'horizon';
/** How a pass reaches the ledger and the provider: a standalone sandbox through one API, or the service as `npm start` runs it. */
type Pass = LedgerApiKind | 'npm start';
type Sizes = { closeMs: number; activations: number; payers: number; paymentsPerPayer: number; sequentialSample: number };

interface ApiRun {
  api: Pass;
  signedUp: number;
  activation: CloseCount;
  mints: CloseCount;
  /** Date.now() at the verify burst's start: what the mints' ledgers' seenAt is counted from. */
  mintsStartedAt: number;
  sequential: CloseCount;
  active: number;
  exact: number;
  answeredSuccess: number;
  /** The latest `success: true` answer, from the burst's first request, in ledger closes (rounded up). */
  lastSuccessCloses: number;
  signups: ReturnType<typeof summarize>;
  verifies: ReturnType<typeof summarize>;
  /** The machine's CPU from the verify burst until its last mint was on the ledger. */
  mintCpu: MachineCpu | undefined;
  database: string;
}

/**
 * Bursts through the distribution account's batching submitter with real ledger timing
 * (ledgers closing every second): wallet activations from a signup burst, then mints from a burst
 * of verify-payment calls; and the one-transaction-per-mint figure beside it. Run twice in the same
 * run, once with the service speaking Stellar RPC to the ledger and once Horizon (the same sandbox
 * ledger, standalone, serving both), so the two adapters are compared on one machine at one time.
 */
export const minting: Scenario = {
  name: 'minting',
  summary: '500 wallet activations and 500 payment mints at once, counted in ledger closes (1 s ledgers), through Stellar RPC and through Horizon (standalone sandboxes), then as npm start runs it',
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const s: Sizes = ctx.smoke
      ? { closeMs: 200, activations: 10, payers: 3, paymentsPerPayer: 3, sequentialSample: 2 }
      : { closeMs: 1000, activations: 500, payers: 50, paymentsPerPayer: 10, sequentialSample: 5 };
    const payments = s.payers * s.paymentsPerPayer;
    const runs: ApiRun[] = [];
    for (const api of ['rpc', 'horizon', 'npm start'] as const) runs.push(await mintingThrough(ctx, api, s));
    const [rpc, horizon, npmStart] = runs as [ApiRun, ApiRun, ApiRun];
    const p99Gap = Math.round(rpc.verifies.p99 - horizon.verifies.p99);

    const closesPerSequentialMint = horizon.sequential.closes / s.sequentialSample;
    const oneTxSequential = Math.ceil(closesPerSequentialMint * payments);
    const oneTxParallel = Math.ceil(payments / CHANNELS);
    const perApi = (r: ApiRun) => [
      closeRow(`${r.api}: wallet activations (signup burst)`, r.activation, 10, r.signedUp),
      closeRow(`${r.api}: payment mints (verify burst)`, r.mints, 8, payments),
      closeRow(`${r.api}: admin mints one at a time (baseline sample)`, r.sequential, s.sequentialSample, s.sequentialSample),
    ];
    return {
      scenario: 'minting',
      settings: { ...s, payments, naira: NAIRA, bcryptCost: 4, channels: CHANNELS, ledger: 'standalone sandbox (npm run sandbox:ledger), RPC at /rpc, Horizon at /', paystack: 'standalone sandbox, no webhook', database: horizon.database },
      baseline: {
        horizon: { activationCloses: horizon.activation.closes, mintCloses: horizon.mints.closes },
        oneTransactionPerMint: {
          sampleMints: s.sequentialSample,
          sampleCloses: horizon.sequential.closes,
          closesPerMint: closesPerSequentialMint,
          extrapolatedClosesSequential: oneTxSequential,
          computedClosesAllChannelsParallel: oneTxParallel,
        },
      },
      figures: Object.fromEntries(runs.map((r) => [r.api, { activation: r.activation, mints: r.mints, mintCpuMsByPart: r.mintCpu?.byPart, mintCpuMs: r.mintCpu?.busyMs, signups: r.signups, verifies: r.verifies, active: r.active, exactBalances: r.exact, answeredSuccess: r.answeredSuccess }])),
      tables: [
        {
          title: `ledger closes (ledgers every ${s.closeMs} ms); judged = max(by sequence, by clock)`,
          rows: [
            ...perApi(rpc),
            ...perApi(horizon),
            ...perApi(npmStart),
            { what: `one tx per mint, sequential: ${closesPerSequentialMint.toFixed(2)} closes/mint x ${payments}`, items: payments, 'closes (judged)': oneTxSequential },
            { what: `one tx per mint, all ${CHANNELS} channels in parallel: ceil(${payments}/${CHANNELS})`, items: payments, 'closes (judged)': oneTxParallel },
          ],
        },
        {
          title: "the verify burst's machine CPU per payment, ms, by part (from the burst until its last mint was on the ledger)",
          // The machine's total first: the parts that spent something follow, a pass's own (its sandbox host) at the end.
          rows: runs.map((r) => {
            const what = `${r.api}: ${payments} verify-payment`;
            return { what, all: cpuPerRequest(r.mintCpu, payments) ?? '-', 'steal ms': r.mintCpu?.stealMs ?? '-', ...cpuByPartRow(what, r.mintCpu, payments) };
          }),
        },
        {
          title: "the verify burst's ledgers as the bench's watch saw them (ms after the burst's start, at most a poll late): where the mints rode",
          rows: runs.flatMap((r) => r.mints.ledgers.map((l, i) => ({ what: `${r.api}: ledger ${i + 1}`, 'seen ms': l.seenAt - r.mintsStartedAt, txs: l.transactions, ops: l.operations, 'ops/tx': l.transactions ? (l.operations / l.transactions).toFixed(1) : '-' }))),
        },
        { title: "the bursts as the clients saw them (latency ms; loop: the service's event loop delay from the burst until its last operation was on the ledger, ms)", rows: runs.flatMap((r) => [loadRow(r.signups), loadRow(r.verifies)]) },
      ],
      targets: [
        { name: `${payments} payments verified at once: RPC needs no more ledger closes than Horizon (same run)`, goal: `<= ${horizon.mints.closes} closes (Horizon's)`, figure: `RPC ${rpc.mints.closes} closes, Horizon ${horizon.mints.closes}`, pass: rpc.mints.closes <= horizon.mints.closes },
        { name: `${payments} payments verified at once: verify-payment's p99 through RPC at most Horizon's + 250 ms (same run)`, goal: '<= +250 ms', figure: `RPC ${Math.round(rpc.verifies.p99)} ms, Horizon ${Math.round(horizon.verifies.p99)} ms: ${p99Gap >= 0 ? '+' : ''}${p99Gap} ms`, pass: p99Gap <= 250, measure: { value: p99Gap, threshold: 250, better: 'lower' as const, unit: 'ms' } },
        { name: `npm start (embedded database, sandbox host, Stellar RPC): ${payments} payments verified at once: the last success within 3 closes of the first request`, goal: '<= 3 closes', figure: `${npmStart.lastSuccessCloses} closes (${npmStart.answeredSuccess} of ${payments} answered success)`, pass: npmStart.lastSuccessCloses <= 3 && npmStart.answeredSuccess === payments, measure: { value: npmStart.lastSuccessCloses, threshold: 3, better: 'lower' as const, unit: 'closes' } },
        ...runs.flatMap((r) => [
          { name: `${r.api}: ${payments} payments verified at once: all minted`, goal: '<= 8 closes', figure: `${r.mints.closes} closes (${r.mints.bySequence} by sequence, ${r.mints.byClock} by clock); one tx per mint: ${oneTxSequential} sequential, ${oneTxParallel} with ${CHANNELS} channels`, pass: r.mints.closes <= 8, measure: { value: r.mints.closes, threshold: 8, better: 'lower' as const, unit: 'closes' } },
          { name: `${r.api}: every payer credited exactly once`, goal: `${s.payers} of ${s.payers}`, figure: `${r.exact} of ${s.payers}`, pass: r.exact === s.payers },
          { name: `${r.api}: ${s.activations} activations queued at once: all active`, goal: '<= 10 closes', figure: `${r.activation.closes} closes (${r.activation.bySequence} by sequence, ${r.activation.byClock} by clock)`, pass: r.activation.closes <= 10 && r.active === s.activations },
        ]),
      ],
      notes: [
        'The ledger is the sandbox run on its own (npm run sandbox:ledger --close-ms), serving Stellar RPC at /rpc and Horizon at its root over the same state; the service is pointed at it with STELLAR_RPC_URL, then with HORIZON_URL, one after the other in this run.',
        "npm start: the service with nothing pointing it elsewhere (its embedded database, its sandbox host's ledger through Stellar RPC and its sandbox provider); the checkouts are paid through the provider sandbox's control without a webhook, so minting starts with the verify burst.",
        'Payments go through the standalone Paystack sandbox without a webhook URL: the embedded one posts charge.success on Pay, which would start minting before the measured verify burst.',
        'Closes are counted from the burst start to the ledger that carried its last operation. By sequence counts ledgers that closed with transactions; by clock counts ledger periods (idle ones too, at most one poll late).',
        `One tx per mint: measured on ${s.sequentialSample} admin mint-tokens calls made one after another through Horizon (each waits for its ledger), extrapolated to ${payments}; the parallel figure assumes every one of the ${CHANNELS} channels carries one single-operation transaction per ledger.`,
      ],
    };
  },
};

/**
 * One pass of the scenario: the service speaking `api` to fresh standalone sandboxes, or (`npm
 * start`) the service alone with its embedded ones.
 */
async function mintingThrough(ctx: ScenarioContext, api: Pass, s: Sizes): Promise<ApiRun> {
  const payments = s.payers * s.paymentsPerPayer;
  const standalone = api !== 'npm start';
  const paystack = standalone ? await PaystackSandboxProcess.launch(ctx.bench) : undefined;
  const ledger = standalone ? await LedgerSandboxProcess.launch(ctx.bench, s.closeMs) : undefined;
  let svc: ServiceInstance | undefined;
  let watch: LedgerWatch | undefined;
  try {
    svc = await ServiceInstance.launch(ctx.bench, {
      label: `minting-${standalone ? api : 'npm-start'}`,
      ledgerCloseMs: s.closeMs,
      bcryptCost: 4,
      ...(standalone ? { paystack: { baseUrl: paystack!.baseUrl, secretKey: paystack!.secretKey }, extraEnv: ledger!.envFor(api), ledgerHorizonUrl: ledger!.url } : {}),
    });
    const service = svc;
    const admin = await adminToken(service);
    ctx.log(`${api}: waiting for the ledger bootstrap and issuing the token supply`);
    await issueSupply(service, admin);
    watch = await LedgerWatch.start(service.horizonUrl);
    // 1. Activations: every signup queues create_account + change_trust (2 operations).
    ctx.log(`${api}: activation burst: ${s.activations} signups at once`);
    const names = Array.from({ length: s.activations }, (_, i) => username('ac', i));
    const userIds = new Map<string, string>();
    let seq0 = watch.latest();
    let t0 = Date.now();
    // The loop's delay from the burst to the last activation on the ledger.
    const activationPhase = await withLoopDelay(service.baseUrl, async () => {
      const signups = await burst(names, async (name) => {
        const res = await request<{ userId: string }>('POST', `${service.baseUrl}/api/users/signup`, { body: signupBody(name), timeoutMs: 60_000 });
        if (res.status === 201) userIds.set(name, res.body.userId);
        return res.status;
      });
      // begin sponsoring, create the account, trust the token, end sponsoring (src/ledger/kinds/activation.ts)
      const activation = await watch!.waitForOperations(seq0, t0, ACTIVATION_OPERATIONS * userIds.size, s.closeMs, BURST_TIMEOUT_MS);
      return { signups, activation };
    });
    const { signups, activation } = activationPhase.result;
    const signedUp = userIds.size;
    const listed = await expectStatus<{ username: string; ledgerPublicKey: string }[]>(200, 'GET', `${service.baseUrl}/api/admin/users?limit=1000`, { token: admin });
    const keys = listed.body.filter((u) => userIds.has(u.username)).map((u) => u.ledgerPublicKey);
    const trusted = await mapLimit(keys, 20, async (key) => (await tokenBalance(service, key)) !== undefined);
    const active = trusted.filter(Boolean).length;

    // 2. Payments: intents and checkout payments first (not measured), then every verify at once.
    ctx.log(`${api}: payments: ${payments} intents for ${s.payers} users, paid at the sandbox checkout`);
    const payers = await mapLimit(names.slice(0, s.payers), 10, async (name) => ({ name, ...(await login(service, name)) }));
    const intents = await mapLimit(
      payers.flatMap((p) => Array.from({ length: s.paymentsPerPayer }, () => p)),
      10,
      async (payer) => {
        const res = await expectStatus<{ authorization_url: string; reference: string }>(200, 'POST', `${service.baseUrl}/api/payments/create-payment-intent`, {
          token: payer.token,
          body: { amount: NAIRA },
        });
        return { payer, ...res.body };
      },
    );
    if (standalone) await mapLimit(intents, 20, (i) => expectStatus(303, 'POST', `${i.authorization_url}/pay`, { redirect: 'manual' }));
    // The embedded provider would post charge.success to the service on Pay: paid without a webhook instead.
    else await mapLimit(intents, 20, (i) => paidWithoutWebhook(service, i.reference));
    ctx.log(`${api}: verify burst: ${payments} verify-payment calls at once`);
    seq0 = watch.latest();
    t0 = Date.now();
    let answeredSuccess = 0;
    let lastSuccessMs = 0;
    const burstStarted = performance.now();
    // The loop's delay from the burst to the last mint on the ledger.
    const mintPhase = await withLoopDelay(service.baseUrl, () => withMachineCpu(async () => {
      const verifies = await burst(intents, async (i) => {
        const res = await request<{ success: boolean }>('POST', `${service.baseUrl}/api/payments/verify-payment`, { token: i.payer.token, body: { reference: i.reference }, timeoutMs: 60_000 });
        if (res.status === 200 && res.body.success) {
          answeredSuccess++;
          lastSuccessMs = Math.max(lastSuccessMs, performance.now() - burstStarted);
        }
        return res.status;
      });
      return { verifies, mints: await watch!.waitForOperations(seq0, t0, payments, s.closeMs, BURST_TIMEOUT_MS) };
    }));
    const { verifies, mints } = mintPhase.result.result;
    const mintsStartedAt = t0;
    const mintCpu = mintPhase.result.cpu;
    // Exactly once: every payer holds exactly what their payments bought, no more, no less.
    const balances = await mapLimit(payers, 10, (p) => tokenBalance(service, p.publicKey));
    const exact = balances.filter((b) => b === NAIRA * s.paymentsPerPayer).length;

    // 3. One transaction per mint: admin mints one at a time, each its own transaction.
    ctx.log(`${api}: one-transaction-per-mint sample: ${s.sequentialSample} sequential admin mints`);
    const anyUser = [...userIds.values()][0]!;
    seq0 = watch.latest();
    t0 = Date.now();
    for (let i = 0; i < s.sequentialSample; i++) await mintTo(service, admin, anyUser, 1);
    const sequential = await watch.waitForOperations(seq0, t0, s.sequentialSample, s.closeMs, BURST_TIMEOUT_MS);

    return {
      api,
      signedUp,
      activation,
      mints,
      mintsStartedAt,
      sequential,
      active,
      exact,
      answeredSuccess,
      lastSuccessCloses: Math.ceil(lastSuccessMs / s.closeMs),
      // loop: from the burst until its last operation was on the ledger
      signups: { ...summarize(`${api}: POST /api/users/signup x ${s.activations} at once`, signups.samples, signups.seconds), loop: activationPhase.loop },
      mintCpu,
      verifies: { ...summarize(`${api}: POST /api/payments/verify-payment x ${payments} at once`, verifies.samples, verifies.seconds), loop: mintPhase.loop },
      database: service.bench.databaseUrl ? 'postgres' : 'embedded',
    };
  } finally {
    await watch?.stop();
    await svc?.dispose();
    await ledger?.dispose();
    await paystack?.dispose();
  }
}

/**
 * The buyer pays at the service's embedded provider, which is told not to post its webhook (the
 * sandbox's control, as a test does): the provider's secret is the one the service derives from
 * its development JWT secret in DATA_DIR.
 */
async function paidWithoutWebhook(service: ServiceInstance, reference: string): Promise<void> {
  const secrets = readDevSecrets(service.dataDir);
  if (!secrets) throw new Error(`no development secrets in ${service.dataDir}`);
  const provider = paymentProviderEndpoint({ PAYSTACK_BASE_URL: '' }, secrets.jwtSecret, `${service.baseUrl}`);
  await expectStatus(200, 'POST', `${provider.baseUrl}${sandboxControlPaths.transactionStatus(reference)}`, { token: provider.secretKey, body: { status: 'success', webhook: false } });
}
