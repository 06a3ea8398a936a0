import os from 'node:os';
import { Worker } from 'node:worker_threads';
import pino, { type DestinationStream, type Logger } from 'pino';
import { serializeError } from './errors/loggable-error';

/**
 * Anything that could carry a credential is censored wherever it appears in a log object. This is
 * the second line of defence: request logs never include bodies or query strings in the first place.
 */
export const REDACTED_PATHS = [
  'password',
  'newPassword',
  'token',
  'ledgerSecretKey',
  'secret',
  'secretKey',
  'authorization',
  'otp',
  // Admin MFA's one-time answers: the TOTP secret (in the URI and its QR code) and the recovery codes.
  'otpauthUri',
  'qrSvg',
  'recoveryCodes',
  '*.password',
  '*.newPassword',
  '*.token',
  '*.ledgerSecretKey',
  '*.secret',
  '*.secretKey',
  '*.authorization',
  '*.otp',
  '*.otpauthUri',
  '*.qrSvg',
  '*.recoveryCodes',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-paystack-signature"]',
  'res.headers["set-cookie"]',
];

export function createLogger(options: { level: string; destination?: DestinationStream }): Logger {
  const pretty = !options.destination && process.stdout.isTTY && process.env.NODE_ENV !== 'production';
  const base = {
    level: options.level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    // Every logged error loses query parameters and driver details (src/errors/loggable-error.ts).
    serializers: { err: serializeError },
  };
  if (options.destination) return pino(base, options.destination);
  if (pretty) return pino({ ...base, transport: { target: 'pino-pretty', options: { colorize: true } } });
  return pino(base, flushedOnExit(new BatchedLines(writerThread(1))));
}

/** Where BatchedLines hands its batches: they are written later, in order, each chunk in one write. */
export interface LineSink {
  /** Chunks of whole lines, each at most ATOMIC_WRITE_BYTES (but a longer single line), and their total bytes. */
  send(chunks: string[], bytes: number): void;
  /** Bytes handed over and not written yet. */
  pendingBytes(): number;
  /** Blocks until everything handed over is written, or `ms` passed. */
  drainSync(ms: number): void;
}

/** Largest write that reaches a pipe in one piece (POSIX PIPE_BUF on Linux). */
export const ATOMIC_WRITE_BYTES = 4096;

export interface BatchedLinesOptions {
  /** Bytes of lines held while the sink is slower than the traffic; lines beyond are dropped and counted. */
  maxBufferedBytes?: number;
  /** How long a flush on the way out waits for the sink (ms). */
  exitWaitMs?: number;
}

/** While lines are being dropped: how often to look whether the sink caught up. */
const CATCH_UP_CHECK_MS = 100;

/**
 * A pino destination that makes no write system call on the event loop. Lines are collected during
 * a turn of the loop and handed to the sink once per turn (setImmediate), cut into chunks of whole
 * lines of at most 4096 bytes (PIPE_BUF: with WEB_CONCURRENCY, processes share one stdout pipe,
 * and a write of up to PIPE_BUF reaches a pipe in one piece, never interleaved mid-line with
 * another process's). A single line longer than 4096 bytes is a chunk of its own.
 *
 * When the sink is slower than the traffic, at most maxBufferedBytes (default 1 MiB) wait; lines
 * beyond are dropped and counted, never held in unbounded memory, and once the sink has caught up
 * one warning line says how many were dropped. flushSync hands over what waits and blocks until
 * the sink wrote it (at most exitWaitMs, default 2 s): on exit and on a crash (flushedOnExit).
 */
export class BatchedLines {
  private readonly maxBufferedBytes: number;
  private readonly exitWaitMs: number;
  /** Sealed chunks of this turn of the loop, and the one being filled. */
  private chunks: string[] = [];
  private chunksBytes = 0;
  private open = '';
  private openBytes = 0;
  private scheduled = false;
  private ended = false;
  /** Lines dropped since the last warning. */
  private dropped = 0;
  private catchUpTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly sink: LineSink,
    options: BatchedLinesOptions = {},
  ) {
    this.maxBufferedBytes = options.maxBufferedBytes ?? 1024 * 1024;
    this.exitWaitMs = options.exitWaitMs ?? 2_000;
  }

  /** Lines dropped so far and not yet reported by a warning line. */
  get droppedLines(): number {
    return this.dropped;
  }

  /** One line from pino (it ends with a newline). */
  write(line: string): boolean {
    const bytes = Buffer.byteLength(line);
    if (this.sink.pendingBytes() + this.chunksBytes + this.openBytes + bytes > this.maxBufferedBytes) {
      this.dropped++;
      this.catchUpTimer ??= setInterval(this.reportDropped, CATCH_UP_CHECK_MS).unref();
      return true;
    }
    if (this.openBytes + bytes > ATOMIC_WRITE_BYTES) this.seal();
    this.open += line;
    this.openBytes += bytes;
    if (this.ended) this.flushSync();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.handOver);
    }
    return true;
  }

  /** pino's logger.flush(). */
  flush(done?: (err?: Error) => void): void {
    this.flushSync();
    done?.();
  }

  /**
   * Hands over what waits and blocks until it is written (or exitWaitMs passed); then, caught up,
   * says what was dropped, and writes that too.
   */
  flushSync(): void {
    const deadline = Date.now() + this.exitWaitMs;
    this.handOver();
    this.sink.drainSync(this.exitWaitMs);
    if (!this.reportDropped()) return;
    this.handOver();
    this.sink.drainSync(Math.max(0, deadline - Date.now()));
  }

  /** The process is exiting: what waits is written, and every later line at once. */
  end(): void {
    this.ended = true;
    this.flushSync();
  }

  private seal(): void {
    if (this.openBytes === 0) return;
    this.chunks.push(this.open);
    this.chunksBytes += this.openBytes;
    this.open = '';
    this.openBytes = 0;
  }

  private readonly handOver = (): void => {
    this.scheduled = false;
    this.seal();
    if (this.chunks.length === 0) return;
    this.sink.send(this.chunks, this.chunksBytes);
    this.chunks = [];
    this.chunksBytes = 0;
  };

  /**
   * Once the sink has caught up (nothing waits: neither in the sink nor here, not handed over yet):
   * one line saying how many lines were dropped, in pino's shape. True when it wrote that line.
   */
  private readonly reportDropped = (): boolean => {
    if (this.dropped === 0 || this.sink.pendingBytes() + this.chunksBytes + this.openBytes > 0) return false;
    clearInterval(this.catchUpTimer);
    this.catchUpTimer = undefined;
    const dropped = this.dropped;
    this.dropped = 0;
    this.write(`${JSON.stringify({ level: 40, time: Date.now(), pid: process.pid, hostname: os.hostname(), droppedLines: dropped, msg: `${dropped} log lines dropped: the log destination was slower than the traffic` })}\n`);
    return true;
  };
}

/**
 * The writer thread's code: each chunk in one write(2) (the rest of a short write after it), a
 * full non-blocking pipe waited out; then the bytes are taken off the shared pending count. A
 * destination that fails (EPIPE: nobody reads any more) loses the chunk; the service goes on.
 */
const WRITER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const pending = new Int32Array(workerData.pending);
const pause = new Int32Array(new SharedArrayBuffer(4));
parentPort.on('message', (chunks) => {
  for (const chunk of chunks) {
    const buffer = Buffer.from(chunk);
    for (let offset = 0, attempts = 0; offset < buffer.length; ) {
      try {
        offset += fs.writeSync(workerData.fd, buffer, offset);
      } catch (err) {
        if (err.code !== 'EAGAIN' || ++attempts > 10000) break;
        Atomics.wait(pause, 0, 0, 1);
      }
    }
    Atomics.sub(pending, 0, buffer.length);
  }
  Atomics.notify(pending, 0);
});
`;

/**
 * A file descriptor written by a thread of its own: the event loop only posts each turn's chunks
 * (no system call, no wait), and a slow or blocked destination holds that thread, never the loop.
 */
export function writerThread(fd: number): LineSink {
  const pending = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(WRITER_SOURCE, { eval: true, workerData: { fd, pending: pending.buffer } });
  worker.unref();
  return {
    send(chunks, bytes) {
      Atomics.add(pending, 0, bytes);
      worker.postMessage(chunks);
    },
    pendingBytes: () => Atomics.load(pending, 0),
    drainSync(ms) {
      const deadline = Date.now() + ms;
      for (let left = Atomics.load(pending, 0); left > 0 && Date.now() < deadline; left = Atomics.load(pending, 0)) {
        Atomics.wait(pending, 0, left, deadline - Date.now());
      }
    },
  };
}

/**
 * What waits is written on the way out: on exit (process.exit after the graceful shutdown of
 * SIGTERM/SIGINT, or the end of the event loop) and when an exception or a rejection is about to
 * crash the process (uncaughtExceptionMonitor: the process still dies as it would have). A hard
 * kill (SIGKILL, OOM) loses what waits: the lines of the current turn of the loop and those the
 * writer thread has not written yet (nothing more, unless stdout was slower than the traffic).
 */
function flushedOnExit(destination: BatchedLines): BatchedLines {
  process.on('exit', () => destination.end());
  process.on('uncaughtExceptionMonitor', () => destination.flushSync());
  return destination;
}

export type { Logger };
