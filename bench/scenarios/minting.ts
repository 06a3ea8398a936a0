import { expectStatus, mapLimit, request } from '../http';
import { LedgerWatch, type CloseCount } from '../ledger-watch';
import { summarize, type Sample } from '../load';
import { loadRow } from '../report';
import { adminToken, issueSupply, login, mintTo, signupBody, tokenBalance, username } from '../seed';
import { PaystackSandboxProcess, ServiceInstance } from '../service';
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

/**
 * Bursts through the distribution account's batching submitter with real ledger timing
 * (LEDGER_CLOSE_MS=1000): wallet activations from a signup burst, then mints from a burst of
 * verify-payment calls; and the one-transaction-per-mint figure beside it.
 */
export const minting: Scenario = {
  name: 'minting',
  summary: '500 wallet activations and 500 payment mints at once, counted in ledger closes (LEDGER_CLOSE_MS=1000)',
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const s = ctx.smoke
      ? { closeMs: 200, activations: 10, payers: 3, paymentsPerPayer: 3, sequentialSample: 2 }
      : { closeMs: 1000, activations: 500, payers: 50, paymentsPerPayer: 10, sequentialSample: 5 };
    const payments = s.payers * s.paymentsPerPayer;
    const paystack = await PaystackSandboxProcess.launch(ctx.bench);
    let svc: ServiceInstance | undefined;
    let watch: LedgerWatch | undefined;
    try {
      svc = await ServiceInstance.launch(ctx.bench, {
        label: 'minting',
        ledgerCloseMs: s.closeMs,
        bcryptCost: 4,
        paystack: { baseUrl: paystack.baseUrl, secretKey: paystack.secretKey },
      });
      const service = svc;
      const admin = await adminToken(service);
      ctx.log('waiting for the ledger bootstrap and issuing the token supply');
      await issueSupply(service, admin);
      watch = await LedgerWatch.start(service.horizonUrl);

      // 1. Activations: every signup queues create_account + change_trust (2 operations).
      ctx.log(`activation burst: ${s.activations} signups at once`);
      const names = Array.from({ length: s.activations }, (_, i) => username('ac', i));
      const userIds = new Map<string, string>();
      let seq0 = watch.latest();
      let t0 = Date.now();
      const signups = await burst(names, async (name) => {
        const res = await request<{ userId: string }>('POST', `${service.baseUrl}/api/users/signup`, { body: signupBody(name), timeoutMs: 60_000 });
        if (res.status === 201) userIds.set(name, res.body.userId);
        return res.status;
      });
      const signedUp = userIds.size;
      // begin sponsoring, create the account, trust the token, end sponsoring (src/ledger/entry-operations.ts)
      const activation = await watch.waitForOperations(seq0, t0, ACTIVATION_OPERATIONS * signedUp, s.closeMs, BURST_TIMEOUT_MS);
      const listed = await expectStatus<{ username: string; ledgerPublicKey: string }[]>(200, 'GET', `${service.baseUrl}/api/admin/users?limit=1000`, { token: admin });
      const keys = listed.body.filter((u) => userIds.has(u.username)).map((u) => u.ledgerPublicKey);
      const trusted = await mapLimit(keys, 20, async (key) => (await tokenBalance(service, key)) !== undefined);
      const active = trusted.filter(Boolean).length;

      // 2. Payments: intents and checkout payments first (not measured), then every verify at once.
      ctx.log(`payments: ${payments} intents for ${s.payers} users, paid at the sandbox checkout`);
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
      await mapLimit(intents, 20, (i) => expectStatus(303, 'POST', `${i.authorization_url}/pay`, { redirect: 'manual' }));
      ctx.log(`verify burst: ${payments} verify-payment calls at once`);
      seq0 = watch.latest();
      t0 = Date.now();
      let answeredSuccess = 0;
      const verifies = await burst(intents, async (i) => {
        const res = await request<{ success: boolean }>('POST', `${service.baseUrl}/api/payments/verify-payment`, { token: i.payer.token, body: { reference: i.reference }, timeoutMs: 60_000 });
        if (res.status === 200 && res.body.success) answeredSuccess++;
        return res.status;
      });
      const mints = await watch.waitForOperations(seq0, t0, payments, s.closeMs, BURST_TIMEOUT_MS);
      // Exactly once: every payer holds exactly what their payments bought, no more, no less.
      const balances = await mapLimit(payers, 10, (p) => tokenBalance(service, p.publicKey));
      const exact = balances.filter((b) => b === NAIRA * s.paymentsPerPayer).length;

      // 3. One transaction per mint: admin mints one at a time, each its own transaction.
      ctx.log(`one-transaction-per-mint sample: ${s.sequentialSample} sequential admin mints`);
      const anyUser = [...userIds.values()][0]!;
      seq0 = watch.latest();
      t0 = Date.now();
      for (let i = 0; i < s.sequentialSample; i++) await mintTo(service, admin, anyUser, 1);
      const sequential = await watch.waitForOperations(seq0, t0, s.sequentialSample, s.closeMs, BURST_TIMEOUT_MS);
      const closesPerSequentialMint = sequential.closes / s.sequentialSample;

      const signupFigures = summarize(`POST /api/users/signup x ${s.activations} at once`, signups.samples, signups.seconds);
      const verifyFigures = summarize(`POST /api/payments/verify-payment x ${payments} at once`, verifies.samples, verifies.seconds);
      const oneTxSequential = Math.ceil(closesPerSequentialMint * payments);
      const oneTxParallel = Math.ceil(payments / CHANNELS);
      return {
        scenario: 'minting',
        settings: { ...s, payments, naira: NAIRA, bcryptCost: 4, channels: CHANNELS, paystack: 'standalone sandbox, no webhook', database: service.bench.databaseUrl ? 'postgres' : 'embedded' },
        baseline: {
          oneTransactionPerMint: {
            sampleMints: s.sequentialSample,
            sampleCloses: sequential.closes,
            closesPerMint: closesPerSequentialMint,
            extrapolatedClosesSequential: oneTxSequential,
            computedClosesAllChannelsParallel: oneTxParallel,
          },
        },
        figures: { activation, mints, signups: signupFigures, verifies: verifyFigures, active, exactBalances: exact, answeredSuccess },
        tables: [
          {
            title: `ledger closes (LEDGER_CLOSE_MS=${s.closeMs}); judged = max(by sequence, by clock)`,
            rows: [
              closeRow('wallet activations (signup burst)', activation, 10, signedUp),
              closeRow('payment mints (verify burst)', mints, 8, payments),
              closeRow('admin mints one at a time (baseline sample)', sequential, s.sequentialSample, s.sequentialSample),
              { what: `one tx per mint, sequential: ${closesPerSequentialMint.toFixed(2)} closes/mint x ${payments}`, items: payments, 'closes (judged)': oneTxSequential },
              { what: `one tx per mint, all ${CHANNELS} channels in parallel: ceil(${payments}/${CHANNELS})`, items: payments, 'closes (judged)': oneTxParallel },
            ],
          },
          { title: 'the bursts as the clients saw them (latency ms)', rows: [loadRow(signupFigures), loadRow(verifyFigures)] },
        ],
        targets: [
          { name: `${payments} payments verified at once: all minted`, goal: '<= 8 closes', figure: `${mints.closes} closes (${mints.bySequence} by sequence, ${mints.byClock} by clock); one tx per mint: ${oneTxSequential} sequential, ${oneTxParallel} with ${CHANNELS} channels`, pass: mints.closes <= 8 },
          { name: 'every payer credited exactly once', goal: `${s.payers} of ${s.payers}`, figure: `${exact} of ${s.payers}`, pass: exact === s.payers },
          { name: `${s.activations} activations queued at once: all active`, goal: '<= 10 closes', figure: `${activation.closes} closes (${activation.bySequence} by sequence, ${activation.byClock} by clock)`, pass: activation.closes <= 10 && active === s.activations },
          { name: 'wallets active with the trustline', goal: `${s.activations} of ${s.activations}`, figure: `${active} of ${s.activations}`, pass: active === s.activations },
        ],
        notes: [
          'Payments go through the standalone Paystack sandbox without a webhook URL: the embedded one posts charge.success on Pay, which would start minting before the measured verify burst.',
          'Closes are counted from the burst start to the ledger that carried its last operation. By sequence counts ledgers that closed with transactions; by clock counts LEDGER_CLOSE_MS periods (idle ones too, at most one poll late).',
          `One tx per mint: measured on ${s.sequentialSample} admin mint-tokens calls made one after another (each waits for its ledger), extrapolated to ${payments}; the parallel figure assumes every one of the ${CHANNELS} channels carries one single-operation transaction per ledger.`,
        ],
      };
    } finally {
      await watch?.stop();
      await svc?.dispose();
      await paystack.dispose();
    }
  },
};
