import type { FastifyInstance } from 'fastify';
import { actionRoute } from '../access-hook';
import { ApiError, parseInput } from '../api-error';
import {
  callParamsSchema,
  cancelResponseSchema,
  decideBodySchema,
  decideResponseSchema,
  turnParamsSchema,
} from '../api-schemas';
import { type DashboardContext, withUpstreamDeadline } from '../dashboard-context';
import { findTurn } from '../find-turn';
import { sendJson } from '../send-json';
import { upstreamError } from '../upstream-error';

/** `POST /api/turns/:id/cancel`, `…/calls/:callId/approve` and `…/reject`. */
export function registerActionRoutes({
  app,
  context,
}: {
  app: FastifyInstance;
  context: DashboardContext;
}): void {
  app.post('/api/turns/:id/cancel', actionRoute, async (request, reply) => {
    const { id } = parseInput({ schema: turnParamsSchema, value: request.params, where: 'path' });
    const found = await findTurn({ context, turnId: id });
    if (!found.running)
      throw new ApiError(
        409,
        `turn ${id} already ended (${found.workflowStatus.toLowerCase()}); there is nothing to cancel`,
      );
    await withUpstreamDeadline({ context, fn: () => context.client.attach(id).cancel() }).catch(
      (error: unknown) => {
        throw upstreamError({ error, context: context.upstream, turnId: id });
      },
    );
    return sendJson({
      reply,
      schema: cancelResponseSchema,
      value: { turnId: id, cancelRequested: true },
      status: 202,
    });
  });

  for (const approved of [true, false]) {
    const verb = approved ? 'approve' : 'reject';
    app.post(`/api/turns/:id/calls/:callId/${verb}`, actionRoute, async (request, reply) => {
      const { id, callId } = parseInput({ schema: callParamsSchema, value: request.params, where: 'path' });
      const { reason } = parseInput({
        schema: decideBodySchema,
        value: request.body ?? undefined,
        where: 'body',
      });
      const found = await findTurn({ context, turnId: id });
      if (!found.running)
        throw new ApiError(
          409,
          `turn ${id} already ended (${found.workflowStatus.toLowerCase()}); no call of it waits for a decision`,
        );
      const handle = context.client.attach(id);
      await withUpstreamDeadline({
        context,
        fn: () => (approved ? handle.approve(callId, reason) : handle.reject(callId, reason)),
      }).catch((error: unknown) => {
        const mapped = upstreamError({ error, context: context.upstream, turnId: id });
        if (mapped.status === 409)
          throw new ApiError(409, `cannot ${verb} ${callId} of turn ${id}: ${mapped.message}`);
        throw mapped;
      });
      return sendJson({
        reply,
        schema: decideResponseSchema,
        value: { turnId: id, toolCallId: callId, approved, ...(reason && { reason }) },
      });
    });
  }
}
