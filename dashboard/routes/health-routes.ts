import type { FastifyInstance } from 'fastify';
import { healthHistoryResponseSchema, healthResponseSchema } from '../api-schemas';
import { type DashboardContext, withUpstreamDeadline } from '../dashboard-context';
import { openSse } from '../open-sse';
import { sendJson } from '../send-json';
import { upstreamError } from '../upstream-error';

/**
 * `GET /api/health` (fleet tool health now), `GET /api/health/history` (success rates over time,
 * as the fleet health workflow kept them) and `GET /api/health/events` (the health every few
 * seconds, and the history).
 */
export function registerHealthRoutes({
  app,
  context,
}: {
  app: FastifyInstance;
  context: DashboardContext;
}): void {
  app.get('/api/health', async (_request, reply) => {
    const view = await withUpstreamDeadline({ context, fn: () => context.client.fleetHealth() }).catch(
      (error: unknown) => {
        throw upstreamError({ error, context: context.upstream });
      },
    );
    return sendJson({ reply, schema: healthResponseSchema, value: view });
  });

  app.get('/api/health/history', async (_request, reply) => {
    const history = await withUpstreamDeadline({ context, fn: () => context.client.healthHistory() }).catch(
      (error: unknown) => {
        throw upstreamError({ error, context: context.upstream });
      },
    );
    return sendJson({ reply, schema: healthHistoryResponseSchema, value: history });
  });

  app.get('/api/health/events', async (request, reply) => {
    let unsubscribe = () => {};
    const subscriber = openSse({ request, reply, onClose: () => unsubscribe() });
    unsubscribe = context.health.subscribe({ subscriber });
  });
}
