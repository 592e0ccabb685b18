import type { FastifyInstance } from 'fastify';
import { parseInput } from '../api-error';
import { lastEventIdSchema, turnParamsSchema } from '../api-schemas';
import type { DashboardContext } from '../dashboard-context';
import { findTurn } from '../find-turn';
import { openSse } from '../open-sse';

/**
 * `GET /api/turns/:id/events`: the turn's watch events as server-sent events, from the shared
 * feed of the turn (one upstream watch however many viewers). `Last-Event-ID` (or `?after=`)
 * resumes after that entry.
 */
export function registerTurnEventsRoute({
  app,
  context,
}: {
  app: FastifyInstance;
  context: DashboardContext;
}): void {
  app.get('/api/turns/:id/events', async (request, reply) => {
    const { id } = parseInput({ schema: turnParamsSchema, value: request.params, where: 'path' });
    const query = request.query as Record<string, unknown>;
    const after = parseInput({
      schema: lastEventIdSchema,
      value: request.headers['last-event-id'] ?? query.after,
      where: 'header',
    });
    const { running } = await findTurn({ context, turnId: id });
    let unsubscribe = () => {};
    const subscriber = openSse({ request, reply, onClose: () => unsubscribe() });
    unsubscribe = context.hub.subscribe({ turnId: id, after, subscriber, running });
  });
}
