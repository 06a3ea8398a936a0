import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { FaultPlanError } from '../src';
import { clientFor, fundedAccount, startSandbox, type LedgerClient, type SandboxHarness } from './sandbox-harness';
import { getJson, preparedPayment, submissionError, transactionStatus } from './fault-helpers';

/** Submits a fresh payment and returns the HTTP status the client got. */
async function submitStatus(harness: LedgerClient): Promise<number> {
  const { tx } = await preparedPayment(harness);
  try {
    await harness.horizon.submitTransaction(tx);
    return 200;
  } catch (error) {
    return (error as { response?: { status: number } }).response?.status ?? 0;
  }
}

async function statusesOf(harness: SandboxHarness, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i += 1) statuses.push(await submitStatus(harness));
  return statuses;
}

describe('choosing which submissions draw the fault', () => {
  let harness: SandboxHarness;
  let draws: number[] = [];

  beforeAll(async () => {
    harness = await startSandbox({ faultRandom: () => draws.shift() ?? 0.99 });
  });

  afterEach(() => harness.faults.clear());

  afterAll(() => harness.close());

  it('share: the submissions whose random draw falls under the share', async () => {
    draws = [0.5, 0.1, 0.9, 0.29];
    harness.faults.set({ mode: 'refuse-503', share: 0.3 });

    expect(await statusesOf(harness, 4)).toEqual([200, 503, 200, 503]);
  });

  it('next: exactly the next N submissions, then the plan ends', async () => {
    const drawn = harness.faults.stats['refuse-503'];
    harness.faults.set({ mode: 'refuse-503', next: 2 });

    expect(await statusesOf(harness, 3)).toEqual([503, 503, 200]);
    expect(harness.faults.stats['refuse-503']).toBe(drawn + 2);
  });

  it('neither share nor next: every submission until clear()', async () => {
    harness.faults.set({ mode: 'refuse-503' });
    expect(await statusesOf(harness, 2)).toEqual([503, 503]);

    harness.faults.clear();

    expect(await statusesOf(harness, 1)).toEqual([200]);
  });

  it('leaves reads, friendbot and undecodable envelopes alone', async () => {
    harness.faults.set({ mode: 'refuse-503' });
    const funded = await fundedAccount(harness);
    expect((await getJson(harness, `/accounts/${funded.publicKey()}`)).status).toBe(200);
    const malformed = await fetch(`${harness.url}/transactions`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'tx=AAAA',
    });
    expect(malformed.status).toBe(400);
  });

  it('refuses an invalid plan, naming the field', () => {
    expect(() => harness.faults.set({ mode: 'lag' })).toThrow(FaultPlanError);
    expect(() => harness.faults.set({ mode: 'lag' })).toThrow('lagMs: required for lag');
    expect(() => harness.faults.set({ mode: 'slow', slowMs: 10, share: 1.5 })).toThrow(/^share:/);
    expect(() => harness.faults.set({ mode: 'apply-then-504', share: 0.5, next: 2 })).toThrow('next: give share or next, not both');
    expect(() => harness.faults.set({ mode: 'apply-then-502', slowMs: 10 })).toThrow('slowMs: only for slow');
  });
});

describe('/_sandbox/faults', () => {
  let harness: SandboxHarness;

  beforeAll(async () => {
    harness = await startSandbox();
  });

  afterAll(() => harness.close());

  const control = (method: string, body?: unknown) =>
    getJson(harness, '/_sandbox/faults', {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });

  it('sets, shows and clears the plan over HTTP', async () => {
    const set = await control('POST', { mode: 'apply-then-502', next: 1 });
    expect(set).toMatchObject({ status: 200, body: { plan: { mode: 'apply-then-502', next: 1 }, remaining: 1 } });

    const { tx, hash } = await preparedPayment(harness);
    const error = await submissionError(harness, tx);
    expect(error.response?.status).toBe(502);
    expect(await transactionStatus(harness, hash)).toBe(200);
    const shown = await control('GET');
    expect(shown).toMatchObject({ status: 200, body: { plan: null, remaining: null, stats: { 'apply-then-502': 1 } } });

    await control('POST', { mode: 'refuse-503' });
    expect((await control('GET')).body).toMatchObject({ plan: { mode: 'refuse-503' } });
    const cleared = await control('DELETE');
    expect(cleared).toMatchObject({ status: 200, body: { plan: null } });
    expect(await submitStatus(harness)).toBe(200);
  });

  it('answers an invalid plan with a 400 problem naming the field, and keeps the current plan', async () => {
    await control('POST', { mode: 'slow', slowMs: 1 });
    const invalid = await control('POST', { mode: 'lag-then-504', share: 2, lagMs: 10 });
    expect(invalid).toMatchObject({
      status: 400,
      contentType: expect.stringContaining('application/problem+json'),
      body: { type: 'https://stellar.org/horizon-errors/bad_request', extras: { invalid_field: 'share' } },
    });
    expect((await control('POST', { mode: 'nope' })).body).toMatchObject({ extras: { invalid_field: 'mode' } });
    expect((await control('POST', { mode: 'lag', lagMs: 10, extra: 1 })).status).toBe(400);
    expect((await control('GET')).body).toMatchObject({ plan: { mode: 'slow', slowMs: 1 } });
    await control('DELETE');
  });
});

describe('the CLI', () => {
  const packageRoot = path.resolve(__dirname, '..');
  const children: ChildProcess[] = [];

  afterAll(async () => {
    for (const child of children) {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
    }
  });

  const startCli = (args: string[]) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', '--port', '0', ...args], {
      cwd: packageRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    /** Resolves with the URL it prints, or rejects with what it said if it exits first. */
    const url = new Promise<string>((resolve, reject) => {
      child.stdout?.on('data', () => {
        const printed = /faults: .*\n/.test(stdout) ? /at (http:\/\/\S+?)\/?\n/.exec(stdout)?.[1] : undefined;
        if (printed) resolve(printed.replace('localhost', '127.0.0.1'));
      });
      child.once('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
    });
    return { url, output: () => stdout };
  };

  it('starts with the fault the flags describe, and takes another over HTTP', async () => {
    const cli = startCli(['--fault', 'apply-then-504', '--fault-next', '1']);
    const url = await cli.url;
    expect(cli.output()).toContain('faults: {"mode":"apply-then-504","next":1}');
    const harness = clientFor(url);
    const { tx, hash } = await preparedPayment(harness);

    const error = await submissionError(harness, tx);

    expect(error.response?.status).toBe(504);
    expect(await transactionStatus(harness, hash)).toBe(200);
    expect((await getJson(harness, '/_sandbox/faults')).body).toMatchObject({ plan: null, stats: { 'apply-then-504': 1 } });

    const set = await getJson(harness, '/_sandbox/faults', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ mode: 'refuse-503' }),
    });
    expect(set.status).toBe(200);
    expect(await submitStatus(harness)).toBe(503);
  });

  it('refuses a fault plan it cannot run, naming the flag', async () => {
    const cli = startCli(['--fault', 'lag']);
    await expect(cli.url).rejects.toThrow('--lag-ms: required for lag');
  });
});
