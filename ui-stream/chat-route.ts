import {
  type ChatConversations,
  ConversationRefusedError,
  conversationTurnId,
  conversationTurnNumber,
  formatIssues,
  threadIdSchema,
} from '../core';
import { chatMessages } from './chat-messages';
import { chatAskOf, chatPostSchema } from './chat-request';
import { type ChatRequestClient, isLoopbackRequest } from './loopback-request';
import { readBodyText } from './read-body-text';
import { readEventId, turnUiStreamResponse } from './turn-ui-stream-response';

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
  /**
   * `GET {api}/{chatId}/stream`: the running turn's message from its start (204 when none runs);
   * with `Last-Event-ID` (an id of this chat's events, as `EventSource` sends it), what follows that
   * event in its message, running or ended (204 after its finish).
   */
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
    const elsewhere = crossSite(request, !authorize);
    if (elsewhere) return problem(403, elsewhere);
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
      // What useChat sends; a form or a no-cors fetch of another site cannot send it unasked.
      if (!/^application\/json\b/i.test(request.headers.get('content-type') ?? ''))
        return problem(415, 'a chat request is JSON (content-type: application/json)');
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
          return stream(request, post.id, turnId);
        }
        // The answered message is a turn of this chat (its id is the turn's): decide there only.
        const turnId = ask.messageId;
        if (!(await conversations.turns(post.id)).includes(turnId))
          return problem(409, `message ${quote(turnId)} is not a turn of chat ${quote(post.id)}`);
        for (const decision of ask.decisions) await conversations.decide(turnId, decision);
        return stream(request, post.id, turnId, {
          afterDecisionsOf: ask.decisions.map((d) => d.toolCallId),
        });
      } catch (error) {
        if (error instanceof ConversationRefusedError) return problem(409, error.message);
        throw error;
      }
    },

    async resume(request, chatId, client) {
      const denied = await refusal(request, client, chatId);
      if (denied) return denied;
      const lastEventId = request.headers.get('last-event-id');
      if (lastEventId) return resumeAfter(request, chatId, lastEventId);
      const turnId = await conversations.runningTurn(chatId);
      if (turnId === undefined) return new Response(null, { status: 204 });
      return stream(request, chatId, turnId);
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
      let chatId: string;
      try {
        chatId = decodeURIComponent(match[1]);
      } catch {
        return problem(400, 'the chat id in the path is not valid percent-encoding');
      }
      if (!threadIdSchema.safeParse(chatId).success)
        return problem(400, `chat id ${quote(chatId)} is not valid`);
      return match[2] === 'stream'
        ? route.resume(request, chatId, client)
        : route.messages(request, chatId, client);
    },
  };

  /** The rest of the message an event id names: `{turn}/{position}`, a turn of this chat. */
  async function resumeAfter(request: Request, chatId: string, lastEventId: string) {
    const turn = /^([1-9]\d{0,9})\//.exec(lastEventId)?.[1];
    const turnId = turn === undefined ? undefined : conversationTurnId(chatId, Number(turn));
    const position = turn === undefined ? undefined : readEventId(lastEventId, `${turn}/`);
    const notOurs = problem(
      400,
      `Last-Event-ID ${quote(lastEventId)} is not an event id of chat ${quote(chatId)}`,
    );
    if (turnId === undefined || !position || 'invalid' in position) return notOurs;
    if (!(await conversations.turns(chatId)).includes(turnId)) return notOurs;
    const from = await conversations.journalEnd(turnId);
    // A position the journal has not reached was not made by this turn's stream.
    if (position.seq > from) return notOurs;
    return stream(request, chatId, turnId, { lastEventId, from });
  }

  async function stream(
    request: Request,
    chatId: string,
    turnId: string,
    {
      afterDecisionsOf,
      lastEventId,
      from,
    }: { afterDecisionsOf?: readonly string[]; lastEventId?: string; from?: number } = {},
  ) {
    // Where the journal ends now: the stream ends at a pause from there on, not at one in the past.
    const journalEnd = from ?? (await conversations.journalEnd(turnId));
    return turnUiStreamResponse({
      watch: (signal) => conversations.watch(turnId, signal),
      messageId: turnId,
      signal: request.signal,
      endAtPause: { from: journalEnd },
      // Which turn of the chat: an id sent back names the message it belongs to.
      eventIdPrefix: `${conversationTurnNumber(chatId, turnId) ?? 0}/`,
      ...(afterDecisionsOf ? { afterDecisionsOf } : {}),
      ...(lastEventId !== undefined ? { lastEventId } : {}),
    });
  }

  return route;
}

/**
 * Why a request made by a page of another site is refused, if it is: browsers say where a request
 * comes from (`Sec-Fetch-Site`), and a page elsewhere must not post to a chat with the user's
 * cookies. Serving loopback only, the `Origin` must also be the address the request was sent to
 * (behind a proxy that rewrites `Host` this could not hold: there `authorize` is given).
 */
function crossSite(request: Request, loopbackOnly: boolean): string | undefined {
  if (request.headers.get('sec-fetch-site') === 'cross-site') return 'a request from another site is refused';
  const origin = request.headers.get('origin');
  if (!loopbackOnly || origin === null) return undefined;
  let host: string | undefined;
  try {
    host = new URL(origin).host;
  } catch {
    return 'the request names a malformed Origin';
  }
  if (host !== request.headers.get('host'))
    return `a request from another origin (${quote(origin)}) is refused`;
  return undefined;
}

function problem(status: number, error: string): Response {
  return Response.json({ error }, { status });
}

/** An id quoted for a message, cut short (ids come from the client). */
function quote(id: string): string {
  return JSON.stringify(id.length > 64 ? `${id.slice(0, 64)}…` : id);
}
