import { z } from 'zod';
import { AppError } from '../errors/app-error';
import { eventSchema } from '../domain/events';
import { principalOf } from '../middleware/auth';
import type { EventFeedService } from '../services/event-feed.service';
import { defineRoute } from './define-route';
import type { RouteDef } from './route-table';

export const eventsQuery = z
  .object({
    after: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional().describe("Events after this seq (the stream also takes it as the `Last-Event-ID` header); default 0: from the first kept"),
    limit: z.coerce.number().int().min(1).max(1000).default(100).describe('The JSON page only'),
  })
  .strict();

export const eventsPageSchema = z.object({ events: z.array(eventSchema) });

/** The user's own events: GET /api/users/events (CONTRACT.md section 13). */
export function eventRoutes({ feed }: { feed: EventFeedService }): RouteDef[] {
  return [
    defineRoute({
      method: 'get',
      path: '/events',
      access: 'user',
      summary: "The caller's events: a live stream with Accept: text/event-stream, else a JSON page",
      request: { query: eventsQuery },
      response: { status: 200, schema: eventsPageSchema, contentType: 'application/json' },
      handler: async (req, res) => {
        const userId = principalOf(res).id;
        const after = lastEventId(req.get('last-event-id')) ?? req.query.after ?? 0;
        // The stream only when asked for by name (EventSource and fetch readers send it); anything
        // else (curl's */*, Postman, a JSON client) gets the page, which always ends.
        if (!/\btext\/event-stream\b/i.test(req.get('accept') ?? '')) {
          res.json({ events: await feed.page(userId, after, req.query.limit) });
          return;
        }
        res.status(200).set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache, no-transform', 'X-Accel-Buffering': 'no' });
        res.flushHeaders();
        // A browser's EventSource reconnects after this long, sending the last id it read.
        res.write('retry: 3000\n\n');
        // The reader may leave while the stream starts: its subscription ends either way.
        const reader = { gone: false, stop: undefined as (() => void) | undefined };
        res.on('close', () => {
          reader.gone = true;
          reader.stop?.();
        });
        reader.stop = await feed.stream(userId, after, {
          write: (frame) => res.write(frame),
          drained: () => new Promise<void>((resolve) => (reader.gone ? resolve() : (res.once('drain', resolve), res.once('close', resolve)))),
          end: () => res.end(),
        });
        if (reader.gone) reader.stop();
      },
    }),
  ];
}

/** The seq a reconnecting reader sends back; anything but a whole number is a 400. */
function lastEventId(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  if (!/^\d{1,15}$/.test(header.trim())) throw new AppError('VALIDATION', 'Last-Event-ID must be the seq of an event', [{ path: 'Last-Event-ID', message: 'must be a whole number' }]);
  return Number(header.trim());
}
