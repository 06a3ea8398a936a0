import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { poissonArrivals, seededRandom } from '../../bench/open-loop/arrivals';
import { runOpenLoop, startOpenLoop } from '../../bench/open-loop';

/**
 * The bench's fixed-rate probe (bench/open-loop.ts): arrivals are data (seeded, ascending, at the
 * asked mean rate), and the generator sends every one of them exactly once whatever the server
 * does, which is what makes it an open loop. States and counts only; no duration is asserted.
 */

describe('Poisson arrivals', () => {
  it('are the same for the same seed, ascending, inside the window, at the mean rate', () => {
    const a = poissonArrivals(200, 50, 7);
    expect(poissonArrivals(200, 50, 7)).toEqual(a);
    expect(poissonArrivals(200, 50, 8)).not.toEqual(a);
    expect(a.every((t, i) => t >= 0 && t < 50_000 && (i === 0 || t >= a[i - 1]!))).toBe(true);
    // 10,000 expected; a Poisson count's standard deviation is 100, so 3% is over three of them.
    expect(Math.abs(a.length - 10_000)).toBeLessThan(300);
  });

  it('have exponential gaps: as many shorter as longer than the median ln 2 / rate', () => {
    const a = poissonArrivals(100, 100, 3);
    const gaps = a.slice(1).map((t, i) => t - a[i]!);
    const median = (Math.LN2 / 100) * 1000;
    const shorter = gaps.filter((g) => g < median).length / gaps.length;
    expect(shorter).toBeGreaterThan(0.47);
    expect(shorter).toBeLessThan(0.53);
    // Evenly spaced arrivals would all sit at 10 ms; bursts under 1 ms must occur.
    expect(gaps.some((g) => g < 1)).toBe(true);
  });

  it('refuses a rate or a window that is not positive', () => {
    expect(() => poissonArrivals(0, 1, 1)).toThrow(/positive/);
    expect(() => poissonArrivals(1, -1, 1)).toThrow(/positive/);
    const random = seededRandom(1);
    expect(Array.from({ length: 1000 }, random).every((x) => x >= 0 && x < 1)).toBe(true);
  });
});

describe('the open-loop generator (its own process)', () => {
  let server: http.Server;
  let seen: number;
  let url: string;
  /** While set, the server answers nothing: the responses wait here. */
  let holdAll: boolean;
  let held: http.ServerResponse[];
  let authorizations: Set<string>;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      seen++;
      if (req.headers.authorization) authorizations.add(req.headers.authorization);
      if (holdAll) {
        held.push(res);
        return;
      }
      res.writeHead(req.url === '/missing' ? 404 : 200).end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    seen = 0;
    held = [];
    holdAll = false;
    authorizations = new Set();
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends every scheduled arrival once and counts each answer', async () => {
    const expected = poissonArrivals(100, 1, 5).length;
    const figures = await runOpenLoop({ label: 'ok', url: `${url}/`, ratePerS: 100, durationS: 1, seed: 5, warmupS: 0 });
    expect(figures.requests).toBe(expected);
    expect(figures.ok).toBe(expected);
    expect(seen).toBe(expected);
    expect(figures.statusCodes).toEqual({ '200': expected });
  });

  it('sends every arrival while none has been answered: the schedule, not the answers, sets the pace', async () => {
    const expected = poissonArrivals(100, 1, 9).length;
    holdAll = true;
    const running = startOpenLoop({ label: 'held', url: `${url}/`, ratePerS: 100, durationS: 1, seed: 9, maxConnections: 500, warmupS: 0 });
    // A closed loop would stop at its number of connections; every request arrives with no answer given.
    await waitFor(() => seen === expected);
    expect(held).toHaveLength(expected);
    for (const res of held.splice(0)) res.end('late');
    const figures = await running.done;
    expect([figures.requests, figures.ok]).toEqual([expected, expected]);
  });

  it('takes its config on stdin: the bearer token reaches the server, never a command line', async () => {
    const token = `probe-token-${process.pid}`;
    const running = startOpenLoop({ label: 'auth', url: `${url}/`, ratePerS: 50, durationS: 600, headers: { authorization: `Bearer ${token}` }, warmupS: 0 });
    await running.measuring;
    await waitFor(() => seen > 0);
    const commandLines = fs
      .readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .map((pid) => {
        try {
          return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
        } catch {
          return ''; // gone meanwhile
        }
      });
    running.stop();
    await running.done;
    expect(commandLines.some((line) => line.includes('open-loop/generator.ts'))).toBe(true);
    expect(commandLines.filter((line) => line.includes(token))).toEqual([]);
    expect(authorizations.has(`Bearer ${token}`)).toBe(true);
  });

  it('sends the warm-up first and leaves it out of the figures', async () => {
    const all = poissonArrivals(100, 2, 4);
    const measured = all.filter((t) => t >= 1000).length;
    const figures = await runOpenLoop({ label: 'warm', url: `${url}/`, ratePerS: 100, durationS: 1, seed: 4, warmupS: 1 });
    expect(seen).toBe(all.length);
    expect(figures.requests).toBe(measured);
    expect(figures.ok).toBe(measured);
  });

  it('reports non-2xx answers as such', async () => {
    const figures = await runOpenLoop({ label: 'missing', url: `${url}/missing`, ratePerS: 50, durationS: 1, seed: 2, warmupS: 0 });
    expect(figures.ok).toBe(0);
    expect(figures.non2xx).toBe(figures.requests);
    expect(figures.requests).toBe(poissonArrivals(50, 1, 2).length);
  });

  it('stops early on request and reports what it sent', async () => {
    const running = startOpenLoop({ label: 'stopped', url: `${url}/`, ratePerS: 100, durationS: 600, seed: 1, warmupS: 0 });
    await waitFor(() => seen >= 5);
    running.stop();
    const figures = await running.done;
    expect(figures.requests).toBeGreaterThanOrEqual(5);
    expect(figures.requests).toBe(seen);
    expect(figures.requests).toBeLessThan(poissonArrivals(100, 600, 1).length);
  });

  it('refuses a target that is not on this machine', () => {
    expect(() => startOpenLoop({ label: 'far', url: 'http://example.com/', ratePerS: 1, durationS: 1 })).toThrow();
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}
