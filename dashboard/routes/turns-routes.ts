import type { FastifyInstance } from 'fastify';
import type { TurnSummary } from '../../client/turn-client';
import { parseInput } from '../api-error';
import {
  type TurnSummaryBody,
  turnListQuerySchema,
  turnListResponseSchema,
  turnParamsSchema,
  turnResponseSchema,
} from '../api-schemas';
import { type DashboardContext, webUiUrlOf, withUpstreamDeadline } from '../dashboard-context';
import { reasonOf } from '../error-reason';
import { findTurn } from '../find-turn';
import { readListPage } from '../read-list-page';
import { sendJson } from '../send-json';
import { upstreamError } from '../upstream-error';

/** `GET /api/turns` (a page of the list, from Visibility) and `GET /api/turns/:id` (state or result). */
export function registerTurnsRoutes({
  app,
  context,
}: {
  app: FastifyInstance;
  context: DashboardContext;
}): void {
  app.get('/api/turns', async (request, reply) => {
    const query = parseInput({ schema: turnListQuerySchema, value: request.query, where: 'query' });
    const page = await readListPage({
      context,
      cursor: query.cursor,
      read: (cursor) =>
        context.client.listPage({
          ...(query.status && { status: query.status }),
          ...(query.conversation && { conversationId: query.conversation }),
          ...(query.waitingForApproval !== undefined && { waitingForApproval: query.waitingForApproval }),
          ...(query.search && { search: query.search }),
          ...(cursor && { cursor }),
          pageSize: query.limit,
        }),
    });
    return sendJson({
      reply,
      schema: turnListResponseSchema,
      value: {
        namespace: context.upstream.namespace,
        turns: page.turns.map((turn) => summaryBody({ turn, context })),
        ...(page.nextCursor && { nextCursor: page.nextCursor }),
      },
    });
  });

  app.get('/api/turns/:id', async (request, reply) => {
    const { id } = parseInput({ schema: turnParamsSchema, value: request.params, where: 'path' });
    const found = await findTurn({ context, turnId: id });
    const handle = context.client.attach(id);
    const base = {
      turnId: id,
      namespace: context.upstream.namespace,
      workflowStatus: found.workflowStatus,
      running: found.running,
      ...optional({ webUiUrl: webUiUrlOf({ context, turnId: id }), closeTime: found.closeTime }),
    };
    try {
      if (found.running) {
        const state = await withUpstreamDeadline({ context, fn: () => handle.state() });
        return sendJson({ reply, schema: turnResponseSchema, value: { ...base, state: { ...state } } });
      }
      const result = await withUpstreamDeadline({ context, fn: () => handle.result() });
      return sendJson({ reply, schema: turnResponseSchema, value: { ...base, result: { ...result } } });
    } catch (error) {
      const mapped = upstreamError({ error, context: context.upstream, turnId: id });
      // A turn that ended without a result (terminated, failed): say why, as a turn, not an error.
      if (!found.running && mapped.status === 502)
        return sendJson({
          reply,
          schema: turnResponseSchema,
          value: { ...base, problem: reasonOf({ error }) },
        });
      throw mapped;
    }
  });
}

function summaryBody({ turn, context }: { turn: TurnSummary; context: DashboardContext }): TurnSummaryBody {
  return {
    turnId: turn.turnId,
    status: turn.status,
    ...(turn.conversationId && { conversationId: turn.conversationId }),
    waitingForApproval: turn.waitingForApproval,
    startTime: turn.startTime.toISOString(),
    ...(turn.closeTime && {
      closeTime: turn.closeTime.toISOString(),
      durationMs: Math.max(0, turn.closeTime.getTime() - turn.startTime.getTime()),
    }),
    ...optional({
      model: turn.model,
      toolCalls: turn.toolCalls,
      tokens: turn.tokens,
      webUiUrl: webUiUrlOf({ context, turnId: turn.turnId }),
    }),
  };
}

function optional<T extends Record<string, unknown>>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<T>;
}
