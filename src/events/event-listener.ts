import { Client } from 'pg';
import { EVENTS_CHANNEL } from '../db/repositories/event.repository';
import type { Logger } from '../logger';

/** Woken with the newest seq PostgreSQL announced for the user (or undefined after a reconnect: look anyway). */
export type Wake = (seq: number | undefined) => void;

/**
 * One LISTEN connection per process for every open stream: an append notifies `wallet_events`
 * with `<userId>:<seq>` at commit (whichever process wrote it), and the streams of that user are
 * woken. An open stream costs no query until its user has something new. A lost connection is
 * opened again and every stream is woken once, so what was announced meanwhile is read anyway.
 */
export class EventListener {
  private readonly byUser = new Map<string, Set<Wake>>();
  private client?: Promise<Client>;
  private closed = false;
  private retry?: NodeJS.Timeout;

  constructor(
    private readonly url: string,
    private readonly logger: Logger,
  ) {}

  /** Calls `wake` whenever the user has a new event; the returned function stops it. */
  async subscribe(userId: string, wake: Wake): Promise<() => void> {
    const wakes = this.byUser.get(userId) ?? new Set<Wake>();
    wakes.add(wake);
    this.byUser.set(userId, wakes);
    const unsubscribe = () => {
      wakes.delete(wake);
      if (wakes.size === 0 && this.byUser.get(userId) === wakes) this.byUser.delete(userId);
    };
    try {
      await this.connected();
    } catch (err) {
      unsubscribe();
      throw err;
    }
    return unsubscribe;
  }

  /** Streams open now (for metrics and tests). */
  get open(): number {
    let n = 0;
    for (const wakes of this.byUser.values()) n += wakes.size;
    return n;
  }

  private connected(): Promise<Client> {
    this.client ??= this.connect().catch((err: unknown) => {
      this.client = undefined;
      throw err;
    });
    return this.client;
  }

  private async connect(): Promise<Client> {
    const client = new Client({ connectionString: this.url, application_name: 'wallet-events' });
    client.on('notification', (message) => {
      if (message.channel !== EVENTS_CHANNEL || !message.payload) return;
      const [userId, seq] = message.payload.split(':');
      for (const wake of this.byUser.get(userId ?? '') ?? []) wake(Number(seq));
    });
    const lost = () => {
      if (this.closed || this.retry) return;
      this.client = undefined;
      this.logger.warn('event listener lost its connection: opening it again');
      this.retry = setTimeout(() => {
        this.retry = undefined;
        if (this.closed || this.byUser.size === 0) return;
        this.connected()
          .then(() => {
            for (const wakes of this.byUser.values()) for (const wake of wakes) wake(undefined);
          })
          .catch(lost);
      }, 1000);
      this.retry.unref();
    };
    client.on('error', lost);
    client.on('end', lost);
    await client.connect();
    await client.query(`listen ${EVENTS_CHANNEL}`);
    return client;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    this.byUser.clear();
    const client = await this.client?.catch(() => undefined);
    await client?.end().catch(() => undefined);
  }
}
