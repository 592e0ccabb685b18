import { type ChatConversations, ConversationRefusedError, formatIssues } from '../core';
import { chatMessages } from './chat-messages';
import { chatAskOf, chatPostSchema } from './chat-request';
import { type ChatRequestClient, isLoopbackRequest } from './loopback-request';
import { readBodyText } from './read-body-text';
import { turnUiStreamResponse } from './turn-ui-stream-response';

export interface ChatRouteOptions {
  conversations: ChatConversations;
  /**
   * May this request act on (or read) this chat? Without it the route serves loopback only: the
   * peer's address and the `Host` the browser used must both be loopback.
   */
  authorize?: (request: Request, target: { conversationId: string }) => boolean | Promise<boolean>;
  /** The largest POST body read (`useChat` posts every message of the chat); default 4 MiB. */
  maxBodyBytes?: number;
}

/** The AI SDK chat transport's endpoints (`DefaultChatTransport`), over durable conversations. */
export interface ChatRoute {
  /**
   * `POST {api}`: a new user message (a turn answers it: its stream), or the page's decisions on
   * approvals the turn waits for (recorded, then the same message goes on). Only the last message
   * is read: the durable transcript is the authority, not the client's copy.
   */
  post(request: Request, client?: ChatRequestClient): Promise<Response>;
  /** `GET {api}/{chatId}/stream`: the running turn's message from its start (204 when none runs). */
  resume(request: Request, chatId: string, client?: ChatRequestClient): Promise<Response>;
  /** `GET {api}/{chatId}/messages`: the chat's messages so far (JSON), for a page that reloads. */
  messages(request: Request, chatId: string, client?: ChatRequestClient): Promise<Response>;
  /** All three, by method and path: POST to any path; GET `…/{chatId}/stream` and `…/{chatId}/messages`. */
  handle(request: Request, client?: ChatRequestClient): Promise<Response>;
}

/**
 * The route a `useChat` page talks to (Fetch `Request` → `Response`: Next.js route handlers, Hono,
 * or Node's `http` through an adapter). A chat is a conversation (its id is the conversation's);
 * each assistant message is a turn (its id is the turn's). The stream ends when the turn ends, or
 * when it waits for nothing but approvals: the page answers them in a new POST, which continues
 * the same message. Everything is read from the turns, so any instance serves any chat, and a
 * page that reloads is sent the running turn's message again from its start (`resume: true`).
 */
export function chatRoute({
  conversations,
  authorize,
  maxBodyBytes = 4 * 1024 * 1024,
}: ChatRouteOptions): ChatRoute {
  /** A refusal, or undefined when the request may go on. */
  async function refusal(request: Request, client: ChatRequestClient | undefined, conversationId?: string) {
    if (!authorize)
      return isLoopbackRequest(request, client)
        ? undefined
        : problem(403, 'this chat route serves loopback only; give it `authorize` to serve other clients');
    if (conversationId === undefined) return undefined;
    return (await authorize(request, { conversationId }))
      ? undefined
      : problem(403, `not allowed to use chat ${quote(conversationId)}`);
  }

  const route: ChatRoute = {
    async post(request, client) {
      // Without `authorize`, a request from elsewhere is refused before its body is read.
      const early = await refusal(request, client);
      if (early) return early;
      const body = await readBodyText(request, maxBodyBytes);
      if ('tooLarge' in body) return problem(413, `the body is over ${maxBodyBytes} bytes`);
      let json: unknown;
      try {
        json = JSON.parse(body.text);
      } catch {
        return problem(400, 'the body is not JSON');
      }
      const parsed = chatPostSchema.safeParse(json);
      if (!parsed.success) return problem(400, `malformed chat request: ${formatIssues(parsed.error)}`);
      const post = parsed.data;
      const denied = await refusal(request, client, post.id);
      if (denied) return denied;
      const ask = chatAskOf(post);
      if ('refused' in ask) return problem(400, ask.refused);
      try {
        if (ask.kind === 'message') {
          const { turnId } = await conversations.send(post.id, ask, request.signal);
          return stream(request, turnId);
        }
        const turnId =
          (await conversations.runningTurn(post.id)) ?? (await conversations.latestTurn(post.id));
        if (turnId === undefined) return problem(409, `chat ${quote(post.id)} has no turn to decide for`);
        for (const decision of ask.decisions) await conversations.decide(turnId, decision);
        return stream(
          request,
          turnId,
          ask.decisions.map((d) => d.toolCallId),
        );
      } catch (error) {
        if (error instanceof ConversationRefusedError) return problem(409, error.message);
        throw error;
      }
    },

    async resume(request, chatId, client) {
      const denied = await refusal(request, client, chatId);
      if (denied) return denied;
      const turnId = await conversations.runningTurn(chatId);
      if (turnId === undefined) return new Response(null, { status: 204 });
      return stream(request, turnId);
    },

    async messages(request, chatId, client) {
      const denied = await refusal(request, client, chatId);
      if (denied) return denied;
      return Response.json(await chatMessages(conversations, chatId, request.signal));
    },

    async handle(request, client) {
      if (request.method === 'POST') return route.post(request, client);
      const match = /\/([^/]+)\/(stream|messages)$/.exec(new URL(request.url).pathname);
      if (request.method !== 'GET' || !match?.[1]) return problem(404, 'no such chat endpoint');
      const chatId = decodeURIComponent(match[1]);
      return match[2] === 'stream'
        ? route.resume(request, chatId, client)
        : route.messages(request, chatId, client);
    },
  };

  function stream(request: Request, turnId: string, afterDecisionsOf?: readonly string[]): Response {
    return turnUiStreamResponse({
      watch: (signal) => conversations.watch(turnId, signal),
      messageId: turnId,
      signal: request.signal,
      endAtPause: true,
      ...(afterDecisionsOf ? { afterDecisionsOf } : {}),
    });
  }

  return route;
}

function problem(status: number, error: string): Response {
  return Response.json({ error }, { status });
}

/** An id quoted for a message, cut short (ids come from the client). */
function quote(id: string): string {
  return JSON.stringify(id.length > 64 ? `${id.slice(0, 64)}…` : id);
}
