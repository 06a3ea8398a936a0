import { countRows } from '../helpers/database-state';
import { userFields } from '../helpers/factories';
import { startTestApp, type TestApp } from '../helpers/test-app';

let a: TestApp;
let b: TestApp;

beforeEach(async () => {
  a = await startTestApp({ SIGNUP_WALLETS_PER_HOUR: '2' });
  b = await startTestApp({ SIGNUP_WALLETS_PER_HOUR: '2' }, 'silent', { reset: false });
});
afterEach(async () => {
  await b.close();
  await a.close();
});

async function userCount(): Promise<number> {
  return countRows(a.container.database, 'users');
}

describe('the signup faucet: an hourly budget of new wallets', () => {
  it('refuses signups with 503 once the budget is spent, across processes; a refused or duplicate signup spends nothing', async () => {
    const first = userFields();
    await a.http.post('/api/users/signup').send(first).expect(201);
    await b.http.post('/api/users/signup').send(first).expect(400); // duplicate: no wallet, no budget spent
    await b.http.post('/api/users/signup').send(userFields()).expect(201);

    const spent = await a.http.post('/api/users/signup').send(userFields());
    expect(spent.status).toBe(503);
    expect(spent.body).toEqual({ error: expect.stringMatching(/new wallets/) });
    expect((await b.http.post('/api/users/signup').send(userFields())).status).toBe(503);
    expect(await userCount()).toBe(2);

    const metrics = await a.http.get('/metrics').expect(200);
    expect(metrics.text).toMatch(/signup_wallets_total\{outcome="created"\} 1/);
    expect(metrics.text).toMatch(/signup_wallets_total\{outcome="refused_budget"\} 1/);
  });
});
