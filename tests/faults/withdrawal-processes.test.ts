import crypto from 'node:crypto';
import request from 'supertest';
import { eventually } from '../helpers/eventually';
import { ADMIN, bearer, userFields } from '../helpers/factories';
import { forwardTo, startFakeServer, type Behaviour, type FakeServer } from '../helpers/fake-server';
import { ledgerBalance } from '../helpers/ledger-fixtures';
import { queryDatabase, scratchDatabase, serviceProcessEnv, settledAndAudited, startServiceProcess, untilFinal, type ServiceProcess } from '../helpers/service-process';
import { withSandboxes } from '../helpers/with-sandboxes';
import { FAST_CASH_OUT, randomAccountNumber, setProviderBalance, transfersToAccount } from '../helpers/withdrawal-fixtures';

/**
 * Cash-out's exactly-once across real service processes on one database (issue 35,
 * src/domain/withdrawal-lifecycle.ts): a process killed with SIGKILL after the withdrawal's tokens
 * left the wallet and before its transfer call reached the provider; one killed after the provider
 * created the transfer and before the answer was recorded; two processes, their sweeps and the
 * provider's webhook working one withdrawal at once. A proxy in front of the provider stops a
 * process at the precise point: it holds the call before forwarding it, or holds the provider's
 * answer. Each ends with one provider transfer to the withdrawal's account (any reference: a second
 * would be a second payout), the transfer calls counted as the proxies saw them, the exact wallet
 * balance and `npm run ledger:audit` clean.
 *
 * One ledger API: what is proven here is about the provider's side; the two kinds of ledger write
 * run on both adapters under every bad day in journal-faults.
 */

const { ledger, provider } = withSandboxes({ ledger: { idleCloseMs: 1000 }, app: false });
let processes: ServiceProcess[] = [];
let proxies: FakeServer[] = [];

afterEach(async () => {
  provider.sandbox.setWebhookUrl(undefined);
  await Promise.all(processes.map((p) => p.kill('SIGTERM')));
  await Promise.all(proxies.map((p) => p.close()));
  processes = [];
  proxies = [];
});

/** The service's settings: quick sweeps and leases, and a provider client that waits out a held call (only a kill or the test ends it). */
function serviceEnv(databaseUrl: string, providerUrl: string): Record<string, string> {
  return serviceProcessEnv(databaseUrl, {
    ...ledger.env,
    ...provider.env,
    ...FAST_CASH_OUT,
    PAYSTACK_BASE_URL: providerUrl,
    PAYSTACK_TIMEOUT_MS: '120000',
    LEDGER_CHANNELS: '2',
    LEDGER_SUBMIT_TIMEOUT_MS: '1000',
    LEDGER_SETTLE_BASE_MS: '50',
    LEDGER_ANSWER_WAIT_MS: '2000',
    LEDGER_LEASE_MS: '1500',
    LEDGER_TX_TIMEOUT_LEDGERS: '4',
  });
}

const isTransferCall = (req: { method?: string; url?: string }) => req.method === 'POST' && req.url === '/transfer';

/** A proxy to the provider that holds every POST /transfer until `gate` resolves, then forwards it; everything else passes at once. */
function holdingTransferCalls(gate: Promise<void>): Behaviour {
  const forward = forwardTo(provider.url);
  return (req, res, body) => {
    if (isTransferCall(req)) void gate.then(() => forward(req, res, body));
    else forward(req, res, body);
  };
}

async function proxy(behaviour: Behaviour): Promise<FakeServer> {
  const started = await startFakeServer(behaviour);
  proxies.push(started);
  return started;
}

const final = untilFinal;

interface Holder {
  userId: string;
  token: string;
  publicKey: string;
  accountNumber: string;
  payoutAccountId: string;
}

/** A user of `service` holding 10 tokens, with a payout account of a fresh number; the provider's float raised. */
async function holderOfTenTokens(service: ServiceProcess): Promise<Holder> {
  const admin = (await request(service.url).post('/api/admin/login').send(ADMIN).expect(200)).body.token as string;
  const supplyKey = `supply-${crypto.randomUUID()}`;
  const supplied = await final(() => request(service.url).post('/api/ledger/create-asset').set(bearer(admin)).set('Idempotency-Key', supplyKey).send({ assetCode: 'WLT', amount: '100' }), 'create-asset');
  expect(supplied.status).toBe(200);
  const fields = userFields();
  const signup = await request(service.url).post('/api/users/signup').send(fields).expect(201);
  const login = await request(service.url).post('/api/users/login').send({ identifier: fields.username, password: fields.password }).expect(200);
  const user = { userId: signup.body.userId as string, token: login.body.token as string, publicKey: login.body.profile.ledgerPublicKey as string };
  await eventually(async () => ((await ledgerBalance(ledger.url, user.publicKey).catch(() => undefined)) !== undefined ? true : undefined), 'the wallet on the ledger');
  await final(() => request(service.url).post('/api/payments/mint-tokens').set(bearer(admin)).set('Idempotency-Key', `fund-${user.userId}`).send({ userId: user.userId, amount: 10 }), 'funding');
  const accountNumber = randomAccountNumber();
  const account = await request(service.url).post('/api/payments/payout-accounts').set(bearer(user.token)).send({ bankCode: '058', accountNumber }).expect(201);
  await setProviderBalance(provider, 100_000_00);
  return { ...user, accountNumber, payoutAccountId: account.body.payoutAccountId as string };
}

/** Withdraws 4 of the holder's tokens (4 Naira); the withdrawal's id. */
async function withdrawFour(service: ServiceProcess, holder: Holder): Promise<string> {
  const res = await request(service.url)
    .post('/api/payments/withdrawals')
    .set(bearer(holder.token))
    .set('Idempotency-Key', crypto.randomUUID())
    .send({ amount: 4, payoutAccountId: holder.payoutAccountId })
    .expect(202);
  return res.body.withdrawalId as string;
}

interface WithdrawalState {
  status: string;
  transfer_calls: number;
  reference: string;
}

async function withdrawalState(databaseUrl: string, id: string): Promise<WithdrawalState> {
  const [row] = await queryDatabase<WithdrawalState>(databaseUrl, 'select status, transfer_calls, reference from withdrawals where id = $1', [id]);
  return row!;
}

/** The withdrawal's journal entries as `kind:status`. */
async function entriesOf(databaseUrl: string, id: string): Promise<string[]> {
  const rows = await queryDatabase<{ kind: string; status: string }>(databaseUrl, 'select kind, status from ledger_entries where withdrawal_id = $1 order by created_at', [id]);
  return rows.map((r) => `${r.kind}:${r.status}`);
}

/** Waits until the withdrawal is final (paid, or its tokens back or never taken), and answers its state. */
function finalState(databaseUrl: string, id: string): Promise<WithdrawalState> {
  return eventually(async () => {
    const state = await withdrawalState(databaseUrl, id);
    return ['paid', 'refunded', 'debit_failed', 'cancelled'].includes(state.status) ? state : undefined;
  }, `withdrawal ${id} to be final`);
}

const transferCallsSeen = (...seen: FakeServer[]) => seen.flatMap((p) => p.requests.filter(isTransferCall));

describe('a service process killed with SIGKILL in the middle of a withdrawal', () => {
  it('after the tokens left the wallet and before the transfer call reached the provider: the next process pays it once', async () => {
    const databaseUrl = await scratchDatabase(`wdl_kill_before_${process.pid}`);
    // Every transfer call is held before it reaches the provider (never released: the process dies first).
    const front = await proxy(holdingTransferCalls(new Promise<void>(() => undefined)));
    const env = serviceEnv(databaseUrl, front.url);
    const service = await startServiceProcess(env);
    processes.push(service);
    const holder = await holderOfTenTokens(service);

    const id = await withdrawFour(service, holder);
    await eventually(async () => (transferCallsSeen(front).length === 1 ? true : undefined), 'the transfer call to be held');
    // The tokens are out of the wallet, the call counted and on its way, and the provider knows nothing of it.
    expect(await entriesOf(databaseUrl, id)).toEqual(['withdrawal:confirmed']);
    expect(await ledgerBalance(ledger.url, holder.publicKey)).toBe('6.0000000');
    expect(await withdrawalState(databaseUrl, id)).toMatchObject({ status: 'sending', transfer_calls: 1 });
    expect(await transfersToAccount(provider, holder.accountNumber)).toEqual([]);
    await service.kill('SIGKILL');
    processes = processes.filter((p) => p !== service);
    // The call died with the process, unanswered.
    await eventually(async () => (transferCallsSeen(front)[0]?.fate === 'abandoned' ? true : undefined), 'the held call to be given up');

    await front.behave(forwardTo(provider.url));
    await service.start();
    processes.push(service);
    const paid = await finalState(databaseUrl, id);

    // Verified first (nothing there), then asked for again under the same reference: one payout.
    expect(paid).toMatchObject({ status: 'paid', transfer_calls: 2 });
    expect(transferCallsSeen(front)).toHaveLength(2);
    expect((await transfersToAccount(provider, holder.accountNumber)).map((t) => [t.reference, t.status, t.amount])).toEqual([[paid.reference, 'success', 400]]);
    expect(await ledgerBalance(ledger.url, holder.publicKey)).toBe('6.0000000');
    expect(await entriesOf(databaseUrl, id)).toEqual(['withdrawal:confirmed']);
    await settledAndAudited(databaseUrl, env);
  });

  it('after the provider created the transfer and before its answer was recorded: the next process verifies it and never calls again', async () => {
    const databaseUrl = await scratchDatabase(`wdl_kill_after_${process.pid}`);
    // The transfer call reaches the provider at once; its answer is held until the process is gone.
    const front = await proxy(forwardTo(provider.url, { holdAnswerMs: (req) => (isTransferCall(req) ? 3_600_000 : 0) }));
    const env = serviceEnv(databaseUrl, front.url);
    const service = await startServiceProcess(env);
    processes.push(service);
    const holder = await holderOfTenTokens(service);

    const id = await withdrawFour(service, holder);
    // No webhook (the provider has no URL here): only the process's own records could know of the payout.
    await eventually(async () => ((await transfersToAccount(provider, holder.accountNumber)).length === 1 ? true : undefined), 'the provider to create the transfer');
    expect(transferCallsSeen(front).map((r) => r.fate)).toEqual(['open']);
    expect(await withdrawalState(databaseUrl, id)).toMatchObject({ status: 'sending', transfer_calls: 1 });
    await service.kill('SIGKILL');
    processes = processes.filter((p) => p !== service);

    await front.behave(forwardTo(provider.url));
    await service.start();
    processes.push(service);
    const paid = await finalState(databaseUrl, id);

    expect(paid).toMatchObject({ status: 'paid', transfer_calls: 1 });
    expect(transferCallsSeen(front)).toHaveLength(1);
    expect((await transfersToAccount(provider, holder.accountNumber)).map((t) => [t.reference, t.status, t.amount])).toEqual([[paid.reference, 'success', 400]]);
    expect(await ledgerBalance(ledger.url, holder.publicKey)).toBe('6.0000000');
    expect(await entriesOf(databaseUrl, id)).toEqual(['withdrawal:confirmed']);
    await settledAndAudited(databaseUrl, env);
  });
});

describe('two service processes, their sweeps and the webhook on one withdrawal', () => {
  it('pay it once: both call the provider under one reference, and every answer and the event agree', async () => {
    const databaseUrl = await scratchDatabase(`wdl_race_${process.pid}`);
    // Each process reaches the provider through its own proxy, which holds its transfer call until both are held.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const frontA = await proxy(holdingTransferCalls(released));
    const frontB = await proxy(holdingTransferCalls(released));
    const a = await startServiceProcess(serviceEnv(databaseUrl, frontA.url));
    processes.push(a);
    const b = await startServiceProcess(serviceEnv(databaseUrl, frontB.url));
    processes.push(b);
    provider.sandbox.setWebhookUrl(`${a.url}/api/payments/webhook`);
    const holder = await holderOfTenTokens(a);

    try {
      const id = await withdrawFour(a, holder);
      // One process's sweep calls and is held; once its lease passes, the other's sweep takes the
      // withdrawal over, finds no transfer, and calls under the same reference.
      await eventually(async () => (transferCallsSeen(frontA, frontB).length === 2 ? true : undefined), 'both processes to call the provider');
      expect([transferCallsSeen(frontA).length, transferCallsSeen(frontB).length]).toEqual([1, 1]);
      expect(await withdrawalState(databaseUrl, id)).toMatchObject({ status: 'sending', transfer_calls: 2 });
      release();
      const paid = await finalState(databaseUrl, id);
      await eventually(async () => (transferCallsSeen(frontA, frontB).every((r) => r.fate === 'answered') ? true : undefined), 'both calls answered');
      const events = () => queryDatabase<{ event: string; status: string }>(databaseUrl, 'select event, status from webhook_events where reference = $1', [paid.reference]);
      await eventually(async () => ((await events()).some((e) => e.status === 'done') ? true : undefined), 'the transfer.success event to be settled');

      expect(paid).toMatchObject({ status: 'paid', transfer_calls: 2 });
      expect(await events()).toEqual([{ event: 'transfer.success', status: 'done' }]);
      expect((await transfersToAccount(provider, holder.accountNumber)).map((t) => [t.reference, t.status, t.amount])).toEqual([[paid.reference, 'success', 400]]);
      expect(await ledgerBalance(ledger.url, holder.publicKey)).toBe('6.0000000');
      expect(await entriesOf(databaseUrl, id)).toEqual(['withdrawal:confirmed']);
      await settledAndAudited(databaseUrl, serviceEnv(databaseUrl, provider.url));
    } finally {
      release();
    }
  });
});
