import crypto from 'node:crypto';
import request from 'supertest';
import { eventually } from '../helpers/eventually';
import { ADMIN, bearer, userFields } from '../helpers/factories';
import { ledgerBalance } from '../helpers/ledger-fixtures';
import { checkout } from '../helpers/payment-fixtures';
import { LEDGER_APIS, startLedgerSandbox, type RunningLedger } from '../helpers/sandboxes';
import { queryDatabase, scratchDatabase, serviceProcessEnv, settledAndAudited as settledAndAuditedBy, startServiceProcess, untilFinal, type ServiceProcess } from '../helpers/service-process';
import { withSandboxes } from '../helpers/with-sandboxes';

/**
 * Real service processes on one PostgreSQL database, as operators run them: two at once hammered
 * on the same wallet and references, and one killed with SIGKILL at random moments of a load and
 * restarted. Every movement happens exactly once, and `npm run ledger:audit` (a process too)
 * finds the database and the ledger in agreement.
 */

// The service runs as its own processes here, started by each test, on each ledger API.
describe.each(LEDGER_APIS)('through %s', (api) => {
  const { ledger, provider } = withSandboxes({ ledger: { api, idleCloseMs: 1000 }, app: false });
  let processes: ServiceProcess[] = [];

  afterEach(async () => {
    ledger.faults.clear();
    await Promise.all(processes.map((p) => p.kill('SIGTERM')));
    processes = [];
  });

  function serviceEnv(databaseUrl: string): Record<string, string> {
    return serviceProcessEnv(databaseUrl, {
      ...ledger.env,
      ...provider.env,
      LEDGER_CHANNELS: '2',
      LEDGER_SUBMIT_TIMEOUT_MS: '1000',
      LEDGER_SETTLE_BASE_MS: '50',
      LEDGER_ANSWER_WAIT_MS: '2000',
      LEDGER_LEASE_MS: '1500',
      // An envelope that was marked sent but never delivered (killed in between) is proven dead once
      // one answer shows the ledger past its last ledger without it: keep its bounds short.
      LEDGER_TX_TIMEOUT_LEDGERS: '4',
      LEDGER_RECHECK_MS: '300',
      RECONCILE_INTERVAL_MS: '300',
      WEBHOOK_RETRY_BASE_MS: '300',
    });
  }

  interface Client {
    userId: string;
    token: string;
    publicKey: string;
  }

  const final = untilFinal;

  async function signUp(service: ServiceProcess, on: RunningLedger = ledger): Promise<Client> {
    const fields = userFields();
    const signup = await request(service.url).post('/api/users/signup').send(fields).expect(201);
    const login = await request(service.url).post('/api/users/login').send({ identifier: fields.username, password: fields.password }).expect(200);
    const client = { userId: signup.body.userId as string, token: login.body.token as string, publicKey: login.body.profile.ledgerPublicKey as string };
    // The wallet is usable once active (a transfer answers 409 before).
    await eventually(async () => ((await ledgerBalance(on.url, client.publicKey).catch(() => undefined)) !== undefined ? true : undefined), 'the wallet on the ledger');
    return client;
  }

  async function adminLogin(service: ServiceProcess): Promise<string> {
    return (await request(service.url).post('/api/admin/login').send(ADMIN).expect(200)).body.token as string;
  }

  /** A paid checkout for `naira`; returns its reference. */
  async function paidPayment(service: ServiceProcess, buyer: Client, naira: number): Promise<string> {
    const intent = await final(() => request(service.url).post('/api/payments/create-payment-intent').set(bearer(buyer.token)).send({ amount: naira }), 'an intent');
    await checkout(intent.body, 'pay');
    return intent.body.reference as string;
  }

  /** Waits until no envelope or entry is open, then runs the audit command; both must come out clean. */
  const settledAndAudited = (databaseUrl: string, env = serviceEnv(databaseUrl)) => settledAndAuditedBy(databaseUrl, env);

  describe('two service processes on one database', () => {
    it('never double a movement when hammered on the same wallet, keys and references at once', async () => {
      const databaseUrl = await scratchDatabase(`procs_two_${process.pid}`);
      const env = serviceEnv(databaseUrl);
      const a = await startServiceProcess(env);
      const b = await startServiceProcess(env);
      processes.push(a, b);
      const admin = await adminLogin(a);
      const alice = await signUp(a);
      const bob = await signUp(b);
      await final(() => request(a.url).post('/api/ledger/create-asset').set(bearer(admin)).send({ assetCode: 'WLT', amount: '10000' }), 'create-asset');
      await final(() => request(b.url).post('/api/payments/mint-tokens').set(bearer(admin)).set('Idempotency-Key', 'fund-alice').send({ userId: alice.userId, amount: 100 }), 'funding');
      const references = await Promise.all([10, 20, 30, 40].map((naira) => paidPayment(a, bob, naira)));
      // Half the submissions apply and then answer 504, the rest normally.
      ledger.faults.set({ mode: 'apply-then-504', share: 0.5 });

      const transfers = Array.from({ length: 8 }, (_, i) => `both-${i}`).flatMap((key) =>
        [a, b, a, b].map((service) =>
          final(() => request(service.url).post('/api/ledger/transfer').set(bearer(alice.token)).set('Idempotency-Key', key).send({ receiverPublicKey: bob.publicKey, amount: 3 }), 'a transfer'),
        ),
      );
      const settlements = references.flatMap((reference) => [
        final(() => request(a.url).post('/api/payments/verify-payment').set(bearer(bob.token)).send({ reference }), 'verify on A'),
        final(() => request(b.url).post('/api/payments/verify-payment').set(bearer(bob.token)).send({ reference }), 'verify on B'),
        final(() => request(b.url).get(`/api/payments/callback?reference=${reference}`), 'callback on B'),
      ]);
      const answers = await Promise.all([...transfers, ...settlements]);

      expect(answers.every((r) => r.status === 200)).toBe(true);
      expect(ledger.faults.stats['apply-then-504']).toBeGreaterThan(0);
      ledger.faults.clear();
      await settledAndAudited(databaseUrl);
      expect(await ledgerBalance(ledger.url, alice.publicKey)).toBe('76.0000000'); // 100 - 8 x 3
      expect(await ledgerBalance(ledger.url, bob.publicKey)).toBe('124.0000000'); // 8 x 3 + 10 + 20 + 30 + 40
      const [transfersOnRecord] = await queryDatabase<{ n: string }>(databaseUrl, `select count(*) as n from ledger_entries where kind = 'transfer' and status = 'confirmed'`);
      expect(Number(transfersOnRecord!.n)).toBe(8);
      const minted = await queryDatabase<{ status: string }>(databaseUrl, `select status from payments`);
      expect(minted.map((p) => p.status)).toEqual(['minted', 'minted', 'minted', 'minted']);
    });
  });

  describe('a service process killed with SIGKILL during a load', () => {
    it('is restarted and finishes every payment and transfer exactly once', async () => {
      // Ledgers close every 400 ms, so a kill lands while envelopes wait for their ledger.
      const slowLedger = await startLedgerSandbox({ api, ledgerCloseMs: 400, idleCloseMs: 1000 });
      try {
        const databaseUrl = await scratchDatabase(`procs_kill_${process.pid}`);
        const env = { ...serviceEnv(databaseUrl), ...slowLedger.env };
        const service = await startServiceProcess(env);
        processes.push(service);
        const admin = await adminLogin(service);
        const alice = await signUp(service, slowLedger);
        const bob = await signUp(service, slowLedger);
        await final(() => request(service.url).post('/api/ledger/create-asset').set(bearer(admin)).send({ assetCode: 'WLT', amount: '10000' }), 'create-asset');
        await final(() => request(service.url).post('/api/payments/mint-tokens').set(bearer(admin)).set('Idempotency-Key', 'fund-alice').send({ userId: alice.userId, amount: 100 }), 'funding');
        const references = await Promise.all(Array.from({ length: 6 }, () => paidPayment(service, bob, 5)));

        const seed = crypto.randomInt(1_000_000);
        const random = mulberry32(seed);
        let inFlight = 0;
        const tracked = (send: () => Promise<request.Response>) => async () => {
          inFlight++;
          try {
            return await send();
          } finally {
            inFlight--;
          }
        };
        // Four phones send five transfers each, one after another; the buyer verifies six payments.
        const phones = [0, 1, 2, 3].map(async (phone) => {
          const answers = [];
          for (let i = 0; i < 5; i++) {
            const key = `kill-${phone}-${i}`;
            answers.push(await final(tracked(() => request(service.url).post('/api/ledger/transfer').set(bearer(alice.token)).set('Idempotency-Key', key).send({ receiverPublicKey: bob.publicKey, amount: 2 })), 'a transfer'));
          }
          return answers;
        });
        const verifies = references.map((reference) => final(tracked(() => request(service.url).post('/api/payments/verify-payment').set(bearer(bob.token)).send({ reference })), 'a verify'));
        let loadDone = false;
        const load = Promise.all([...phones, ...verifies.map((v) => v.then((r) => [r]))]).finally(() => {
          loadDone = true;
        });
        const inFlightAtKills: number[] = [];
        for (let kill = 0; kill < 3; kill++) {
          // A random moment (the seed replays it), and then the first one with a request in flight:
          // a kill is meant to cut requests, however slowly the machine runs the load.
          await new Promise((r) => setTimeout(r, 300 + random() * 900));
          await eventually(async () => (inFlight > 0 || loadDone ? true : undefined), 'a request in flight to cut', { intervalMs: 10 });
          if (loadDone) break;
          inFlightAtKills.push(inFlight);
          await service.kill('SIGKILL');
          await new Promise((r) => setTimeout(r, random() * 300));
          await service.start();
        }
        const answers = (await load).flat();

        // The kills cut requests in the middle (the seed replays the kill moments).
        expect({ seed, cutRequests: inFlightAtKills.length > 0 && inFlightAtKills.every((n) => n > 0) }).toEqual({ seed, cutRequests: true });
        expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
        await settledAndAudited(databaseUrl, env);
        expect(await ledgerBalance(slowLedger.url, alice.publicKey)).toBe('60.0000000'); // 100 - 20 x 2
        expect(await ledgerBalance(slowLedger.url, bob.publicKey)).toBe('70.0000000'); // 20 x 2 + 6 x 5
        const minted = await queryDatabase<{ status: string }>(databaseUrl, `select status from payments`);
        expect(minted.every((p) => p.status === 'minted')).toBe(true);
      } finally {
        await Promise.all(processes.map((p) => p.kill('SIGTERM')));
        processes = [];
        await slowLedger.stop();
      }
    });
  });

  /** A small seeded generator, so a failing run's kill moments can be replayed from its seed. */
  function mulberry32(seed: number): () => number {
    let a = seed;
    return () => {
      a = (a + 0x6d2b79f5) | 0;
      let t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
});
