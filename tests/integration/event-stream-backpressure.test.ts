import crypto from 'node:crypto';
import { EventRepository } from '../../src/db/repositories/event.repository';
import type { EventDraft } from '../../src/domain/events';
import { EventListener } from '../../src/events/event-listener';
import { createLogger } from '../../src/logger';
import { EventFeedService } from '../../src/services/event-feed.service';
import { eventually } from '../helpers/eventually';
import { closeTestDatabase, testDatabase } from '../helpers/test-app';
import { resetDatabase } from '../helpers/database';

// A stream whose reader does not keep up holds its reading back: nothing more is read from the
// database, or written, until the reader has taken what was written (CONTRACT.md section 13's
// "100 concurrent streams hold nothing of anyone else's"; a stalled reader must not fill memory).

afterAll(closeTestDatabase);

it('writes the next event only once the reader took the last one, and all of them in order', async () => {
  const database = await testDatabase();
  await resetDatabase(database);
  const events = new EventRepository(database.db);
  const userId = crypto.randomUUID();
  const drafts: EventDraft[] = Array.from({ length: 5 }, (_, i) => ({ userId, type: 'payment.failed', data: { reference: `r-${i}`, amountNaira: '1.00', tokens: null, reason: 'declined' } }));
  await database.db.transaction((tx) => events.append(tx, drafts));
  const listener = new EventListener(database.url, createLogger({ level: 'silent' }));
  const feed = new EventFeedService({ events, listener, keepAliveMs: 60_000 }, createLogger({ level: 'silent' }));

  const written: number[] = [];
  const waiting: (() => void)[] = [];
  // A reader whose buffer is always full: every write asks the stream to wait.
  const stop = await feed.stream(userId, 0, {
    write: (frame) => {
      written.push(Number(/^id: (\d+)/.exec(frame)?.[1]));
      return false;
    },
    drained: () => new Promise<void>((resolve) => waiting.push(resolve)),
    end: () => undefined,
  });
  try {
    await eventually(async () => (waiting.length === 1 ? true : undefined), 'the stream to wait for the reader');
    expect(written).toEqual([1]);
    for (let taken = 1; taken < 5; taken++) {
      waiting.shift()!();
      await eventually(async () => (written.length === taken + 1 && waiting.length === 1 ? true : undefined), `event ${taken + 1} after the reader took ${taken}`);
    }
    expect(written).toEqual([1, 2, 3, 4, 5]);
  } finally {
    stop();
    waiting.forEach((resolve) => resolve());
    await listener.close();
  }
});
