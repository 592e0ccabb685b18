import { randomBytes } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { actionRoute } from '../access-hook';
import { ApiError, parseInput } from '../api-error';
import { forkBodySchema, forkResponseSchema, turnParamsSchema } from '../api-schemas';
import { type DashboardContext, withUpstreamDeadline } from '../dashboard-context';
import { findTurn } from '../find-turn';
import { sendJson } from '../send-json';
import { upstreamError } from '../upstream-error';

/**
 * `POST /api/turns/:id/fork`: a new turn from a past position of a finished one (`TurnClient.fork`).
 * A source still running, or ended without a result, is a 409; a point or an edit the fork
 * refuses is a 400 in the fork's own words; a new turn id that exists is a 409.
 */
export function registerForkRoute({
  app,
  context,
}: {
  app: FastifyInstance;
  context: DashboardContext;
}): void {
  app.post('/api/turns/:id/fork', actionRoute, async (request, reply) => {
    const { id } = parseInput({ schema: turnParamsSchema, value: request.params, where: 'path' });
    const body = parseInput({ schema: forkBodySchema, value: request.body ?? undefined, where: 'body' });
    const found = await findTurn({ context, turnId: id });
    if (found.running)
      throw new ApiError(
        409,
        `turn ${id} is still running: a fork starts from a finished turn's record (cancel it, or wait for its end)`,
      );
    if (found.workflowStatus !== 'COMPLETED')
      throw new ApiError(
        409,
        `turn ${id} ended ${found.workflowStatus.toLowerCase()}, without a result: there is no record to fork from`,
      );
    const model = body.model ?? found.model;
    if (model === undefined)
      throw new ApiError(
        400,
        `the model of turn ${id} is not known (it began before workers recorded it): give "model"`,
      );
    const turnId = body.turnId ?? `${id}-fork-${randomBytes(3).toString('hex')}`;
    await withUpstreamDeadline({
      context,
      fn: () =>
        context.client.fork({
          from: id,
          at: body.at,
          turnId,
          model,
          // A running turn of that id is another's: the fork never attaches to it.
          ifRunning: 'fail',
          ...(body.outputs && { outputs: body.outputs }),
          ...(body.message !== undefined && { message: body.message }),
        }),
    }).catch((error: unknown) => {
      if (error instanceof Error && error.cause instanceof WorkflowExecutionAlreadyStartedError)
        throw new ApiError(
          409,
          `turn ${turnId} already exists, and a turn id runs once: leave out "turnId" for a new one`,
        );
      // The client's own checks (the point, an edit, the new turn's arguments) throw plain errors.
      if (error instanceof Error && Object.getPrototypeOf(error) === Error.prototype)
        throw new ApiError(400, `cannot fork turn ${id}: ${error.message}`);
      throw upstreamError({ error, context: context.upstream, turnId: id });
    });
    const value = { turnId, from: id, at: body.at, model };
    return sendJson({ reply, schema: forkResponseSchema, value, status: 201 });
  });
}
