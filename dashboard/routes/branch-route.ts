import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { ConversationClient } from '../../client/conversation-client';
import { conversationTurnId, threadIdSchema } from '../../core';
import { actionRoute } from '../access-hook';
import { ApiError, parseInput } from '../api-error';
import { conversationError } from '../conversation-error';
import { branchBodySchema, branchResponseSchema, conversationParamsSchema } from '../conversation-schemas';
import { type DashboardContext, withUpstreamDeadline } from '../dashboard-context';
import { findTurn } from '../find-turn';
import { sendJson } from '../send-json';

/**
 * `POST /api/conversations/:id/branch`: a new conversation after an ended turn of `:id`
 * (`ConversationClient.branch`), its turns asking the source's model. An unknown source is a 404; a
 * source whose model is not known, a point that is not an ended turn, or a new id that exists a 409.
 */
export function registerBranchRoute({
  app,
  context,
}: {
  app: FastifyInstance;
  context: DashboardContext;
}): void {
  const conversations = new ConversationClient(context.client);

  app.post('/api/conversations/:id/branch', actionRoute, async (request, reply) => {
    const { id } = parseInput({ schema: conversationParamsSchema, value: request.params, where: 'path' });
    const body = parseInput({ schema: branchBodySchema, value: request.body ?? undefined, where: 'body' });
    const conversationId = body.conversationId ?? defaultBranchId(id);
    const model = await sourceModel({ context, conversations, conversationId: id });
    const { origin } = await withUpstreamDeadline({
      context,
      fn: () => conversations.branch(id, { conversationId, afterTurn: body.afterTurn, turn: { model } }),
    }).catch((error: unknown) => {
      // The client's own checks (the new conversation's arguments) throw plain errors.
      if (error instanceof Error && Object.getPrototypeOf(error) === Error.prototype)
        throw new ApiError(400, `cannot branch conversation ${id}: ${error.message}`);
      throw conversationError({ error, context: context.upstream, conversationId: id });
    });
    const value = { conversationId, origin, from: id, afterTurn: body.afterTurn, model };
    return sendJson({ reply, schema: branchResponseSchema, value, status: 201 });
  });
}

/** `<id>-branch-<6 hex digits>`, as `durable-turns branch` names it; a 400 when that is too long. */
function defaultBranchId(from: string): string {
  const id = `${from}-branch-${randomBytes(3).toString('hex')}`;
  if (!threadIdSchema.safeParse(id).success)
    throw new ApiError(
      400,
      `conversation id ${from} is too long for the default branch id (${id}): give "conversationId"`,
    );
  return id;
}

/**
 * The model of the source's turns, as its turn 1 recorded it (every turn of a conversation asks the
 * same): a 404 when there is no such conversation, a 409 when it is not known.
 */
async function sourceModel({
  context,
  conversations,
  conversationId,
}: {
  context: DashboardContext;
  conversations: ConversationClient;
  conversationId: string;
}): Promise<string> {
  const turnId = conversationTurnId(conversationId, 1);
  const found = await findTurn({ context, turnId }).catch((error: unknown) => {
    if (error instanceof ApiError && error.status === 404) return undefined;
    throw error;
  });
  if (found?.model) return found.model;
  // Why not: no such conversation (404), or one whose turn 1 is missing or names no model.
  const state = await withUpstreamDeadline({ context, fn: () => conversations.state(conversationId) }).catch(
    (error: unknown) => {
      throw conversationError({ error, context: context.upstream, conversationId });
    },
  );
  const why =
    state.turnCount === 0
      ? 'it has no turn yet'
      : found
        ? `turn ${turnId} names none (it began before workers recorded it)`
        : `turn ${turnId} is gone`;
  throw new ApiError(
    409,
    `the model of conversation ${conversationId} is not known (${why}): branch it with \`durable-turns branch ${conversationId} --after N --model M\``,
  );
}
