import { eventually } from '../helpers/eventually';
import { DELAY_BUCKETS, RESOLUTION_MS } from '../../src/metrics/event-loop-delay';
import { closeTestDatabase, startTestApp, type TestApp } from '../helpers/test-app';

/** event_loop_delay_seconds as /metrics writes it: cumulative counts per bound (seconds), +Inf last. */
interface Scraped {
  buckets: { le: number; count: number }[];
  count: number;
  sum: number;
  recentMax: number;
}

function parse(text: string): Scraped {
  const value = (line: string) => Number(line.slice(line.lastIndexOf(' ') + 1));
  const lines = text.split('\n');
  const buckets = lines
    .filter((l) => l.startsWith('event_loop_delay_seconds_bucket{'))
    .map((l) => {
      const le = /le="([^"]+)"/.exec(l)![1]!;
      return { le: le === '+Inf' ? Infinity : Number(le), count: value(l) };
    });
  const one = (name: string) => {
    const line = lines.find((l) => l.startsWith(`${name} `));
    if (!line) throw new Error(`${name} is not in /metrics`);
    return value(line);
  };
  return { buckets, count: one('event_loop_delay_seconds_count'), sum: one('event_loop_delay_seconds_sum'), recentMax: one('event_loop_delay_recent_max_seconds') };
}

/** Samples whose delay was longer than `seconds` (a bucket bound). */
function above(s: Scraped, seconds: number): number {
  return s.count - s.buckets.find((b) => b.le === seconds)!.count;
}

/** Holds the event loop (this process's: the app runs in it) for at least `ms`, doing nothing else. */
function blockLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spin
  }
}

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.close();
  await closeTestDatabase();
});

describe('event_loop_delay_seconds', () => {
  it('is a cumulative histogram of the loop’s delay, with the recent longest delay beside it', async () => {
    // The first sample needs the loop to turn twice after the app was built: on a busy machine a
    // scrape right after the start can come before it.
    const res = await eventually(async () => {
      const scrape = await app.http.get('/metrics').expect(200);
      return parse(scrape.text).count > 0 ? scrape : undefined;
    }, 'a first event loop delay sample');
    expect(res.text).toContain('# TYPE event_loop_delay_seconds histogram');
    expect(res.text).toContain('# TYPE event_loop_delay_recent_max_seconds gauge');
    const s = parse(res.text);
    expect(s.buckets.map((b) => b.le)).toEqual([...DELAY_BUCKETS, Infinity]);
    // Cumulative: never fewer samples under a larger bound; +Inf holds them all.
    for (let i = 1; i < s.buckets.length; i++) expect(s.buckets[i]!.count).toBeGreaterThanOrEqual(s.buckets[i - 1]!.count);
    expect(s.buckets.at(-1)!.count).toBe(s.count);
    expect(s.count).toBeGreaterThan(0);
    expect(s.sum).toBeGreaterThanOrEqual(0);
    expect(s.recentMax).toBeGreaterThanOrEqual(0);
  });

  it('shows a synchronous block of the loop as a delay at least that long (less the 1 ms sampling interval), and keeps counting', async () => {
    const before = parse((await app.http.get('/metrics').expect(200)).text);
    blockLoop(80);
    const after = parse((await app.http.get('/metrics').expect(200)).text);

    // The timer due every RESOLUTION_MS could not run for 80 ms: one sample of at least 80 - 1 ms.
    expect(after.recentMax).toBeGreaterThanOrEqual((80 - RESOLUTION_MS) / 1000);
    expect(above(after, 0.06)).toBeGreaterThan(above(before, 0.06));
    // Never reset by a scrape: every count only grows.
    expect(after.count).toBeGreaterThan(before.count);
    after.buckets.forEach((b, i) => expect(b.count).toBeGreaterThanOrEqual(before.buckets[i]!.count));
  });
});
