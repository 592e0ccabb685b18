import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { ConversationClient } from '../../client/conversation-client';
import { conversationWorkflowId } from '../../contract/conversation-workflow';
import { actionRoute } from '../access-hook';
import { parseInput } from '../api-error';
import { conversationError } from '../conversation-error';
import {
  conversationListQuerySchema,
  conversationListResponseSchema,
  conversationParamsSchema,
  conversationResponseSchema,
  sendMessageBodySchema,
  sendMessageResponseSchema,
} from '../conversation-schemas';
import { type DashboardContext, webUiUrlOf, withUpstreamDeadline } from '../dashboard-context';
import { EndedTurnResults } from '../ended-turn-results';
import { readConversation } from '../read-conversation';
import { readListPage } from '../read-list-page';
import { sendJson } from '../send-json';

/**
 * `GET /api/conversations` (a page of the list, from Visibility), `GET /api/conversations/:id` (its
 * queue, turns and transcript) and `POST /api/conversations/:id/messages` (an action: send it a message).
 */
export function registerConversationRoutes({
  app,
  context,
}: {
  app: FastifyInstance;
  context: DashboardContext;
}): void {
  const conversations = new ConversationClient(context.client);
  const ended = new EndedTurnResults();

  app.get('/api/conversations', async (request, reply) => {
    const query = parseInput({ schema: conversationListQuerySchema, value: request.query, where: 'query' });
    const page = await readListPage({
      context,
      cursor: query.cursor,
      read: (cursor) =>
        conversations.list({
          ...(query.search && { search: query.search }),
          ...(query.status && { status: query.status }),
          ...(cursor && { cursor }),
          pageSize: query.limit,
        }),
    });
    return sendJson({
      reply,
      schema: conversationListResponseSchema,
      value: {
        namespace: context.upstream.namespace,
        conversations: page.conversations.map((c) => ({
          conversationId: c.conversationId,
          status: c.status,
          startTime: c.startTime.toISOString(),
          ...(c.closeTime && { closeTime: c.closeTime.toISOString() }),
        })),
        ...(page.nextCursor && { nextCursor: page.nextCursor }),
      },
    });
  });

  app.get('/api/conversations/:id', async (request, reply) => {
    const { id } = parseInput({ schema: conversationParamsSchema, value: request.params, where: 'path' });
    const view = await withUpstreamDeadline({
      context,
      fn: () => readConversation({ conversations, conversationId: id, upstream: context.upstream, ended }),
    }).catch((error: unknown) => {
      throw conversationError({ error, context: context.upstream, conversationId: id });
    });
    const webUiUrl = webUiUrlOf({ context, turnId: conversationWorkflowId(id) });
    return sendJson({
      reply,
      schema: conversationResponseSchema,
      value: {
        conversationId: id,
        namespace: context.upstream.namespace,
        ...view,
        ...(webUiUrl && { webUiUrl }),
      },
    });
  });

  app.post('/api/conversations/:id/messages', actionRoute, async (request, reply) => {
    const { id } = parseInput({ schema: conversationParamsSchema, value: request.params, where: 'path' });
    const body = parseInput({
      schema: sendMessageBodySchema,
      value: request.body ?? undefined,
      where: 'body',
    });
    // No turn options: this sends only to a conversation that exists, never begins one.
    const receipt = await withUpstreamDeadline({
      context,
      fn: () =>
        conversations.send(id, body.text, {
          messageId: body.messageId ?? randomUUID(),
          ...(body.policy && { policy: body.policy }),
        }),
    }).catch((error: unknown) => {
      throw conversationError({ error, context: context.upstream, conversationId: id });
    });
    return sendJson({ reply, schema: sendMessageResponseSchema, value: receipt, status: 202 });
  });
}
