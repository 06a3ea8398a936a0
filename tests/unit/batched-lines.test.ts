import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ATOMIC_WRITE_BYTES, BatchedLines, type LineSink } from '../../src/logger';

/** A sink that records each chunk handed over, and writes (forgets) them only when the test says so. */
class HeldSink implements LineSink {
  /** Each hand-over (one per turn of the event loop), as its chunks. */
  readonly handOvers: string[][] = [];
  holding = false;
  private held = 0;

  send(chunks: string[], bytes: number): void {
    this.handOvers.push(chunks);
    if (this.holding) this.held += bytes;
  }

  pendingBytes(): number {
    return this.held;
  }

  drainSync(): void {
    // The test releases by hand.
  }

  release(): void {
    this.holding = false;
    this.held = 0;
  }

  chunks(): string[] {
    return this.handOvers.flat();
  }

  lines(): string[] {
    return this.chunks().join('').split('\n').filter(Boolean);
  }
}

const line = (i: number, pad = 0) => `${JSON.stringify({ level: 30, i, msg: 'request completed', pad: 'x'.repeat(pad) })}\n`;
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('BatchedLines', () => {
  it('hands lines over once per turn of the event loop, in order, in chunks of whole lines of at most 4096 bytes', async () => {
    const sink = new HeldSink();
    const lines = new BatchedLines(sink);
    for (let i = 0; i < 2000; i++) lines.write(line(i, i % 7 === 0 ? 300 : 0));
    expect(sink.handOvers).toEqual([]); // nothing during the turn that logged
    await nextTurn();
    for (let i = 2000; i < 2100; i++) lines.write(line(i));
    await nextTurn();
    expect(sink.handOvers).toHaveLength(2);
    expect(sink.lines().map((l) => JSON.parse(l).i)).toEqual([...Array(2100).keys()]);
    for (const chunk of sink.chunks()) {
      expect(Buffer.byteLength(chunk)).toBeLessThanOrEqual(ATOMIC_WRITE_BYTES);
      expect(chunk.endsWith('\n')).toBe(true);
    }
  });

  it('makes a line longer than 4096 bytes a chunk of its own, whole', async () => {
    const sink = new HeldSink();
    const lines = new BatchedLines(sink);
    lines.write(line(0));
    lines.write(line(1, 5000));
    lines.write(line(2));
    await nextTurn();
    expect(sink.chunks().map((w) => w.split('\n').filter(Boolean).map((l) => JSON.parse(l).i))).toEqual([[0], [1], [2]]);
  });

  it('holds a bounded amount while the destination does not drain, drops and counts the rest, and says so once it caught up', async () => {
    const sink = new HeldSink();
    sink.holding = true;
    const lines = new BatchedLines(sink, { maxBufferedBytes: 16 * 1024 });
    for (let i = 0; i < 10_000; i++) lines.write(line(i));
    let kept = 0;
    for (let bytes = Buffer.byteLength(line(0)); bytes <= 16 * 1024; bytes += Buffer.byteLength(line(++kept)));
    expect(lines.droppedLines).toBe(10_000 - kept);
    await nextTurn();
    // Handed over but still not written: the next lines are dropped too.
    for (let i = 10_000; i < 20_000; i++) lines.write(line(i));
    await nextTurn();
    expect(lines.droppedLines).toBe(20_000 - kept);
    expect(sink.lines().map((l) => JSON.parse(l).i)).toEqual([...Array(kept).keys()]);
    sink.release();
    // The catch-up check runs on a timer: wait for its line.
    while (!sink.lines().at(-1)!.includes('dropped')) await new Promise((resolve) => setTimeout(resolve, 20));
    const warning = JSON.parse(sink.lines().at(-1)!);
    expect(warning).toMatchObject({ level: 40, droppedLines: 20_000 - kept, msg: `${20_000 - kept} log lines dropped: the log destination was slower than the traffic` });
    expect(lines.droppedLines).toBe(0);
    lines.write(line(20_000));
    await nextTurn();
    expect(JSON.parse(sink.lines().at(-1)!).i).toBe(20_000);
  });

  it('says what it dropped only once every kept line is handed over, even when the catch-up check comes before the hand-over', async () => {
    const sink = new HeldSink();
    const lines = new BatchedLines(sink, { maxBufferedBytes: 16 * 1024 });
    for (let i = 0; i < 1_000; i++) lines.write(line(i));
    expect(lines.droppedLines).toBeGreaterThan(0);
    // A turn longer than the catch-up check's interval (a busy machine's): its timer is due before the
    // hand-over of the kept lines. The check must see them waiting (here, not in the sink) and hold on.
    const busyUntil = Date.now() + 150;
    while (Date.now() < busyUntil);
    await new Promise((resolve) => setTimeout(resolve, 0));
    await nextTurn();
    while (!sink.lines().at(-1)?.includes('dropped')) await new Promise((resolve) => setTimeout(resolve, 20));
    const written = sink.lines().map((l) => JSON.parse(l) as { i?: number; droppedLines?: number });
    const kept = written.filter((l) => l.i !== undefined).map((l) => l.i);
    expect(kept).toEqual([...Array(kept.length).keys()]);
    expect(written.at(-1)!.droppedLines).toBe(1_000 - kept.length);
  });

  it('flushSync hands over what waits at once, in order; after end every line is handed over at once', () => {
    const sink = new HeldSink();
    const lines = new BatchedLines(sink);
    for (let i = 0; i < 100; i++) lines.write(line(i));
    expect(sink.handOvers).toEqual([]);
    lines.end();
    lines.write(line(100));
    expect(sink.lines().map((l) => JSON.parse(l).i)).toEqual([...Array(101).keys()]);
  });
});

describe("the service's logger on stdout", () => {
  /** Runs a script using createLogger (no destination: the production one) with stdout a pipe. */
  function runLogging(body: string, stdoutTo: 'pipe' | 'file' = 'pipe'): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'batched-lines-'));
    const script = path.join(dir, 'log.ts');
    const logger = path.resolve(__dirname, '../../src/logger');
    fs.writeFileSync(script, `import { createLogger } from ${JSON.stringify(logger)};\nconst logger = createLogger({ level: 'info' });\n${body}\n`);
    const file = path.join(dir, 'stdout');
    const fd = fs.openSync(file, 'a');
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      cwd: path.resolve(__dirname, '../..'),
      env: { ...process.env, NODE_ENV: 'production' },
      stdio: ['ignore', stdoutTo === 'pipe' ? 'pipe' : fd, 'pipe'],
    });
    fs.closeSync(fd);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    return new Promise((resolve) => {
      child.on('close', (code) => {
        if (stdoutTo === 'file') stdout = fs.readFileSync(file, 'utf8');
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

  // 6,000 lines of ~100-130 bytes fit the logger's 1 MiB buffer whatever the disk does, so none may
  // be dropped: the test holds order and wholeness across many turns. Whether a file keeps up with a
  // sustained burst is a duration (this test once dropped 1,377 of 50,000 lines while the disk
  // stalled under CI): that belongs to a benchmark, not a test.
  it('writes a burst spread over many turns of the event loop to a file, every line whole and in order', async () => {
    const { code, stdout } = await runLogging(
      `let i = 0;\nconst burst = () => { for (let k = 0; k < 100; k++, i++) logger.info({ i }, 'request completed'); if (i < 6000) setImmediate(burst); else process.exit(0); };\nburst();`,
      'file',
    );
    expect(code).toBe(0);
    const lines = numbered(stdout);
    expect(lines.filter((l) => l.msg.includes('dropped'))).toEqual([]);
    expect(lines.map((l) => l.i)).toEqual([...Array(6000).keys()]);
  });

  it('writes every line before a crash, and the process still dies of it', async () => {
    const { code, stdout, stderr } = await runLogging(`for (let i = 0; i < 3000; i++) logger.info({ i }, 'request completed');\nsetImmediate(() => { logger.error('about to fail'); throw new Error('boom'); });`);
    expect(code).toBe(1);
    expect(stderr).toContain('boom');
    const lines = numbered(stdout);
    expect(lines.map((l) => l.i ?? l.msg)).toEqual([...Array(3000).keys(), 'about to fail']);
  });

  it('and before an unhandled rejection ends it', async () => {
    const { code, stdout, stderr } = await runLogging(`logger.info({ i: 0 }, 'request completed');\nvoid Promise.reject(new Error('rejected'));`);
    expect(code).toBe(1);
    expect(stderr).toContain('rejected');
    expect(numbered(stdout).map((l) => l.i)).toEqual([0]);
  });
});
