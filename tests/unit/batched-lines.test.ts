import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ATOMIC_WRITE_BYTES, BatchedLines, type LineSink } from '../../src/logger';

/** A sink that records each write, and answers it only when the test says so. */
class HeldSink implements LineSink {
  readonly writes: string[] = [];
  readonly syncWrites: string[] = [];
  private pending: (() => void)[] = [];
  holding = false;

  write(chunk: Buffer, done: (err: Error | null) => void): void {
    this.writes.push(chunk.toString('utf8'));
    if (this.holding) this.pending.push(() => done(null));
    else setImmediate(() => done(null));
  }

  writeSync(chunk: Buffer): void {
    this.syncWrites.push(chunk.toString('utf8'));
  }

  release(): void {
    this.holding = false;
    for (const done of this.pending.splice(0)) done();
  }

  lines(): string[] {
    return [...this.writes, ...this.syncWrites].join('').split('\n').filter(Boolean);
  }
}

const line = (i: number, pad = 0) => `${JSON.stringify({ level: 30, i, msg: 'request completed', pad: 'x'.repeat(pad) })}\n`;
const until = async (done: () => boolean) => {
  while (!done()) await new Promise((resolve) => setImmediate(resolve));
};

describe('BatchedLines', () => {
  it('writes lines in order, in batches of whole lines of at most 4096 bytes, far fewer writes than lines', async () => {
    const sink = new HeldSink();
    const lines = new BatchedLines(sink);
    for (let i = 0; i < 2000; i++) lines.write(line(i, i % 7 === 0 ? 300 : 0));
    await until(() => sink.lines().length === 2000);
    expect(sink.lines().map((l) => JSON.parse(l).i)).toEqual([...Array(2000).keys()]);
    for (const write of sink.writes) {
      expect(Buffer.byteLength(write)).toBeLessThanOrEqual(ATOMIC_WRITE_BYTES);
      expect(write.endsWith('\n')).toBe(true);
    }
    expect(sink.writes.length).toBeLessThan(2000 / 10);
  });

  it('writes a line longer than 4096 bytes alone, whole', async () => {
    const sink = new HeldSink();
    const lines = new BatchedLines(sink);
    lines.write(line(0));
    lines.write(line(1, 5000));
    lines.write(line(2));
    await until(() => sink.lines().length === 3);
    expect(sink.writes.map((w) => w.split('\n').filter(Boolean).map((l) => JSON.parse(l).i))).toEqual([[0], [1], [2]]);
  });

  it('holds a bounded amount while the destination does not drain, drops and counts the rest, and says so once it caught up', async () => {
    const sink = new HeldSink();
    sink.holding = true;
    const lines = new BatchedLines(sink, { maxBufferedBytes: 16 * 1024 });
    // All in one turn of the event loop: the first write goes out only on the next.
    for (let i = 0; i < 10_000; i++) lines.write(line(i));
    let kept = 0;
    for (let bytes = Buffer.byteLength(line(0)); bytes <= 16 * 1024; bytes += Buffer.byteLength(line(++kept)));
    expect(lines.droppedLines).toBe(10_000 - kept);
    await until(() => sink.writes.length === 1); // the first batch, in flight and held
    // Held again: only the room the batch in flight left is taken, the rest dropped.
    for (let i = 10_000; i < 20_000; i++) lines.write(line(i));
    const dropped = lines.droppedLines;
    sink.release();
    await until(() => sink.lines().some((l) => JSON.parse(l).droppedLines !== undefined));
    sink.release();
    const seen = sink.lines().map((l) => JSON.parse(l));
    const warning = seen.at(-1);
    expect(warning).toMatchObject({ level: 40, droppedLines: dropped, msg: `${dropped} log lines dropped: the log destination was slower than the traffic` });
    // What was kept came whole and in order: the oldest lines, then what fit in the room the batch
    // in flight left when the second burst came; nothing after the warning.
    const numbers = seen.slice(0, -1).map((l) => l.i as number);
    expect(numbers.slice(0, kept)).toEqual([...Array(kept).keys()]);
    expect(numbers.slice(kept).every((n, k) => n === 10_000 + k)).toBe(true);
    expect(numbers.length + dropped).toBe(20_000);
    // Never more held than the buffer and the one batch in flight.
    const keptBytes = seen.slice(0, -1).reduce((sum, l) => sum + Buffer.byteLength(`${JSON.stringify(l)}\n`), 0);
    expect(keptBytes).toBeLessThanOrEqual(16 * 1024 + ATOMIC_WRITE_BYTES);
    expect(lines.droppedLines).toBe(0);
  });

  it('flushSync writes what waits at once, in order; after end every line is written synchronously', () => {
    const sink = new HeldSink();
    const lines = new BatchedLines(sink);
    for (let i = 0; i < 100; i++) lines.write(line(i));
    expect(sink.writes).toEqual([]); // nothing yet: the first batch goes on the next turn of the loop
    lines.end();
    lines.write(line(100));
    expect(sink.lines().map((l) => JSON.parse(l).i)).toEqual([...Array(101).keys()]);
    for (const write of sink.syncWrites) expect(Buffer.byteLength(write)).toBeLessThanOrEqual(ATOMIC_WRITE_BYTES);
  });
});

describe("the service's logger on stdout", () => {
  /** Runs a script using createLogger (no destination: the production one) with stdout a pipe. */
  function runLogging(body: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'batched-lines-'));
    const script = path.join(dir, 'log.ts');
    const logger = path.resolve(__dirname, '../../src/logger');
    fs.writeFileSync(script, `import { createLogger } from ${JSON.stringify(logger)};\nconst logger = createLogger({ level: 'info' });\n${body}\n`);
    const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: path.resolve(__dirname, '../..'), env: { ...process.env, NODE_ENV: 'production' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    return new Promise((resolve) => {
      child.on('close', (code) => {
        fs.rmSync(dir, { recursive: true, force: true });
        resolve({ code, stdout, stderr });
      });
    });
  }

  const numbered = (stdout: string) => stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { i?: number; msg: string });

  it('writes every line before process.exit, each whole', async () => {
    const { code, stdout } = await runLogging(`for (let i = 0; i < 5000; i++) logger.info({ i }, 'request completed');\nprocess.exit(0);`);
    expect(code).toBe(0);
    expect(numbered(stdout).map((l) => l.i)).toEqual([...Array(5000).keys()]);
  });

  it('writes every line before a crash, and the process still dies of it', async () => {
    const { code, stdout, stderr } = await runLogging(`for (let i = 0; i < 3000; i++) logger.info({ i }, 'request completed');\nsetImmediate(() => { logger.error('about to fail'); throw new Error('boom'); });`);
    expect(code).toBe(1);
    expect(stderr).toContain('boom');
    // Every line once. (The batch in flight when the exception came may land after those written
    // at the crash: the order of one batch is the one thing a crash can change.)
    const lines = numbered(stdout);
    expect(lines.map((l) => l.i ?? -1).sort((a, b) => a - b)).toEqual([-1, ...Array(3000).keys()]);
    expect(lines.find((l) => l.i === undefined)?.msg).toBe('about to fail');
  });

  it('and before an unhandled rejection ends it', async () => {
    const { code, stdout, stderr } = await runLogging(`logger.info({ i: 0 }, 'request completed');\nvoid Promise.reject(new Error('rejected'));`);
    expect(code).toBe(1);
    expect(stderr).toContain('rejected');
    expect(numbered(stdout).map((l) => l.i)).toEqual([0]);
  });
});
