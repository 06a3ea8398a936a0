import fs from 'node:fs';
import os from 'node:os';
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
  '*.password',
  '*.newPassword',
  '*.token',
  '*.ledgerSecretKey',
  '*.secret',
  '*.secretKey',
  '*.authorization',
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
  return pino(base, flushedOnExit(new BatchedLines(fdSink(1))));
}

/**
 * Where BatchedLines writes: `write` asynchronously (its done called once the whole chunk is
 * written or failed), `writeSync` on the way out of the process.
 */
export interface LineSink {
  write(chunk: Buffer, done: (err: Error | null) => void): void;
  writeSync(chunk: Buffer): void;
}

/** Largest write that reaches a pipe in one piece (POSIX PIPE_BUF on Linux). */
export const ATOMIC_WRITE_BYTES = 4096;

export interface BatchedLinesOptions {
  /** Bytes of lines held while the sink is slower than the traffic; lines beyond are dropped and counted. */
  maxBufferedBytes?: number;
  /** The largest write of several lines (default PIPE_BUF). */
  maxWriteBytes?: number;
}

/**
 * A pino destination that makes no write system call per line. Lines are collected and written in
 * batches of whole lines of at most 4096 bytes (PIPE_BUF: with WEB_CONCURRENCY, processes share
 * one stdout pipe, and a write of up to PIPE_BUF reaches a pipe in one piece, never interleaved
 * mid-line with another process's). One write is in flight at a time, off the event loop (the
 * sink's asynchronous write); what arrives meanwhile forms the next batches, so the busier the
 * service, the fuller each write. A single line longer than 4096 bytes is written alone.
 *
 * When the sink is slower than the traffic, at most maxBufferedBytes (default 1 MiB) wait; lines
 * beyond are dropped and counted, never held in unbounded memory, and once the sink has caught up
 * (nothing left to write) one warning line says how many were dropped. flushSync writes what
 * waits at once (on exit and on a crash, see flushedOnExit); after `end` every line is written
 * synchronously, for whatever still logs while the process exits.
 */
export class BatchedLines {
  private readonly maxBufferedBytes: number;
  private readonly maxWriteBytes: number;
  /** Batches ready to write, oldest first, each whole lines. */
  private readonly ready: Buffer[] = [];
  /** The batch being collected. */
  private open = '';
  private openBytes = 0;
  /** Bytes waiting: the ready batches and the open one (not the batch in flight). */
  private waitingBytes = 0;
  private inFlight = false;
  private scheduled = false;
  private ended = false;
  /** Lines dropped since the last warning. */
  private dropped = 0;

  constructor(
    private readonly sink: LineSink,
    options: BatchedLinesOptions = {},
  ) {
    this.maxBufferedBytes = options.maxBufferedBytes ?? 1024 * 1024;
    this.maxWriteBytes = options.maxWriteBytes ?? ATOMIC_WRITE_BYTES;
  }

  /** Lines dropped so far and not yet reported by a warning line. */
  get droppedLines(): number {
    return this.dropped;
  }

  /** One line from pino (it ends with a newline). */
  write(line: string): boolean {
    if (this.ended) {
      this.writeAllSync(Buffer.from(line));
      return true;
    }
    const bytes = Buffer.byteLength(line);
    if (this.waitingBytes + bytes > this.maxBufferedBytes) {
      this.dropped++;
      return true;
    }
    if (this.openBytes + bytes > this.maxWriteBytes) this.seal();
    this.open += line;
    this.openBytes += bytes;
    this.waitingBytes += bytes;
    if (!this.inFlight && !this.scheduled) {
      this.scheduled = true;
      setImmediate(this.next);
    }
    return true;
  }

  /** pino's logger.flush(): what waits is written now. */
  flush(done?: (err?: Error) => void): void {
    this.flushSync();
    done?.();
  }

  /**
   * Writes every waiting line now, synchronously, in order. The batch already handed to the sink
   * is not written again (its write is in the kernel's or the thread pool's hands).
   */
  flushSync(): void {
    this.seal();
    this.reportDropped();
    for (let chunk = this.ready.shift(); chunk; chunk = this.ready.shift()) {
      this.waitingBytes -= chunk.length;
      this.writeAllSync(chunk);
    }
  }

  /** The process is exiting: what waits is written, and every later line synchronously. */
  end(): void {
    this.flushSync();
    this.ended = true;
  }

  private seal(): void {
    if (this.openBytes === 0) return;
    this.ready.push(Buffer.from(this.open));
    this.open = '';
    this.openBytes = 0;
  }

  /** Writes the next batch, once the previous one is done. */
  private readonly next = (): void => {
    this.scheduled = false;
    if (this.inFlight || this.ended) return;
    if (this.ready.length === 0) this.seal();
    if (this.ready.length === 0) this.reportDropped();
    const chunk = this.ready.shift();
    if (!chunk) return;
    this.waitingBytes -= chunk.length;
    this.inFlight = true;
    this.sink.write(chunk, () => {
      // A failed write (EPIPE: nobody reads stdout any more) has nowhere to be reported: its lines are lost.
      this.inFlight = false;
      this.next();
    });
  };

  /** Once nothing waits: one line saying how many lines were dropped, in pino's shape. */
  private reportDropped(): void {
    if (this.dropped === 0 || this.openBytes > 0 || this.ready.length > 0) return;
    const dropped = this.dropped;
    this.dropped = 0;
    const line = `${JSON.stringify({ level: 40, time: Date.now(), pid: process.pid, hostname: os.hostname(), droppedLines: dropped, msg: `${dropped} log lines dropped: the log destination was slower than the traffic` })}\n`;
    const chunk = Buffer.from(line);
    this.waitingBytes += chunk.length;
    this.ready.push(chunk);
  }

  private writeAllSync(chunk: Buffer): void {
    try {
      this.sink.writeSync(chunk);
    } catch {
      // As in write: a destination that is gone loses the line; the process goes on (or exits).
    }
  }
}

/** A file descriptor as a LineSink: writes in the thread pool, a short write finished, EAGAIN retried. */
export function fdSink(fd: number): LineSink {
  const writeFrom = (chunk: Buffer, offset: number, done: (err: Error | null) => void): void => {
    fs.write(fd, chunk, offset, chunk.length - offset, null, (err, written) => {
      if (err && (err as NodeJS.ErrnoException).code === 'EAGAIN') setTimeout(writeFrom, 1, chunk, offset, done);
      else if (err) done(err);
      else if (offset + written < chunk.length) writeFrom(chunk, offset + written, done);
      else done(null);
    });
  };
  return {
    write: (chunk, done) => writeFrom(chunk, 0, done),
    writeSync: (chunk) => {
      let offset = 0;
      for (let attempt = 0; offset < chunk.length; ) {
        try {
          offset += fs.writeSync(fd, chunk, offset);
        } catch (err) {
          // A non-blocking pipe that is full: wait a millisecond for the reader, for up to a second.
          if ((err as NodeJS.ErrnoException).code !== 'EAGAIN' || ++attempt > 1000) throw err;
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
        }
      }
    },
  };
}

/**
 * What waits is written on the way out: on exit (process.exit after the graceful shutdown of
 * SIGTERM/SIGINT, or the end of the event loop) and when an exception or a rejection is about to
 * crash the process (uncaughtExceptionMonitor: the process still dies as it would have). A hard
 * kill (SIGKILL, OOM) loses what waits: at most the last moments of lines, up to the buffer.
 */
function flushedOnExit(destination: BatchedLines): BatchedLines {
  process.on('exit', () => destination.end());
  process.on('uncaughtExceptionMonitor', () => destination.flushSync());
  return destination;
}

export type { Logger };
