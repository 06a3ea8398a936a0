import type { EventRepository } from '../db/repositories/event.repository';
import { clientEventOf, type ClientEvent } from '../domain/events';
import type { EventListener } from '../events/event-listener';
import type { Logger } from '../logger';

/** Events read per query while a stream catches up. */
const PAGE = 100;

/** One event as Server-Sent Events frame it: the seq is the id a reconnecting reader sends back as Last-Event-ID. */
export function sseFrameOf(event: ClientEvent): string {
  return `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** Where a stream writes: a frame (false: the reader's buffer is full), the wait for it to empty, the end. */
export interface StreamOut {
  write(frame: string): boolean;
  /** Resolves once the reader has taken what was written, or has gone. */
  drained(): Promise<void>;
  end(): void;
}

/**
 * A user's own events (CONTRACT.md section 13): a page for clients that poll, and a live stream
 * that reads only when PostgreSQL announces something new for the user (EventListener).
 */
export class EventFeedService {
  /** How to end each open stream: the service is stopping, and an open response would hold the server. */
  private readonly open = new Set<() => void>();

  constructor(
    private readonly deps: { events: EventRepository; listener: EventListener; keepAliveMs: number },
    private readonly logger: Logger,
  ) {}

  async page(userId: string, after: number, limit: number): Promise<ClientEvent[]> {
    return (await this.deps.events.userPage(userId, after, limit)).map(clientEventOf);
  }

  /**
   * Writes every event of the user after `after`, then each new one as it commits, in seq order,
   * each once; a comment every keepAliveMs keeps proxies from closing a quiet stream. The listener
   * is subscribed before the first read, so an event committed while that read runs wakes another.
   * Returns the function that stops it (the client went away); `end` closes the response when the
   * service stops first. A reader that does not keep up holds the reading back (`drained`), so
   * what waits for it in memory is one page at the most.
   */
  async stream(userId: string, after: number, out: StreamOut): Promise<() => void> {
    const { write, end } = out;
    let last = after;
    let reading = false;
    let again = false;
    let stopped = false;
    const catchUp = async (): Promise<void> => {
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      try {
        do {
          again = false;
          for (;;) {
            const rows = await this.deps.events.userPage(userId, last, PAGE);
            for (const row of rows) {
              if (stopped) return;
              last = row.seq;
              // A reader slower than its events: read no more until it has taken what was written.
              if (!write(sseFrameOf(clientEventOf(row)))) await out.drained();
            }
            if (rows.length < PAGE) break;
          }
        } while (again && !stopped);
      } catch (err) {
        // The next wake (or the reader's reconnect with Last-Event-ID) reads from `last` again.
        this.logger.warn({ err: (err as Error).message }, 'event stream read failed');
      } finally {
        reading = false;
      }
    };
    const unsubscribe = await this.deps.listener.subscribe(userId, (seq) => {
      if (seq === undefined || seq > last) void catchUp();
    });
    const keepAlive = setInterval(() => write(': keep-alive\n\n'), this.deps.keepAliveMs);
    keepAlive.unref();
    const stop = () => {
      stopped = true;
      clearInterval(keepAlive);
      unsubscribe();
      this.open.delete(close);
    };
    const close = () => {
      stop();
      end();
    };
    this.open.add(close);
    // Not awaited: a reader slower than its backlog would hold the caller until it caught up.
    void catchUp();
    return stop;
  }

  /** Ends every open stream (readers reconnect to another process with their Last-Event-ID). */
  close(): void {
    for (const close of [...this.open]) close();
  }
}
