import type { ServerResponse } from 'node:http';
import {
  type HttpErrorReply,
  startRecordingServer,
  writeHttpError,
} from '../support/models/recording-server';
import type { Provider } from './corpus';
import { responsesCarriedBack } from './responses-carried-back';
import type { StreamTimeline } from './stream-timeline';

export interface ReplayedRequest {
  /** The response (1-based) the request asked for: one more than the responses it carried back. */
  step: number;
  body: unknown;
}

export interface ReplayServer {
  /** The API root to give the provider as `baseURL`. */
  baseURL: string;
  /** Every request, in arrival order. */
  requests: ReplayedRequest[];
  /** Steps asked for that have no answer: the turn asked for more than the conversation holds. */
  overruns: number[];
  close(): Promise<void>;
}

const apiPaths: Record<Provider, string> = {
  anthropic: '/v1/messages',
  'openai-responses': '/v1/responses',
  'openai-chat': '/v1/chat/completions',
  'openai-compatible': '/v1/chat/completions',
};

type Reply = { kind: 'replay'; step: number; body: Buffer } | HttpErrorReply;

/**
 * A local provider on a real HTTP port that answers each request with the recorded bytes of the
 * step it asks for (`answers[step - 1]`), as `text/event-stream`, holding the final event until the
 * timeline lets it go. A request for a step beyond the answers gets a 400 naming the conversation
 * and the step, and is noted in `overruns`: the turn fails with that message instead of hanging.
 */
export async function startReplayServer({
  provider,
  name,
  answers,
  timeline,
}: {
  provider: Provider;
  name: string;
  answers: readonly Buffer[];
  timeline: StreamTimeline;
}): Promise<ReplayServer> {
  const requests: ReplayedRequest[] = [];
  const overruns: number[] = [];
  const server = await startRecordingServer<Reply>({
    path: apiPaths[provider],
    script: (request) => {
      const step = responsesCarriedBack(provider, request.body) + 1;
      requests.push({ step, body: request.body });
      const body = answers[step - 1];
      if (body) return { kind: 'replay', step, body };
      overruns.push(step);
      return overrun(
        `replay server: ${provider}/${name} has ${answers.length} answers; a request asked for answer ${step}`,
      );
    },
    respond: (reply, _request, res) =>
      reply.kind === 'http-error' ? writeHttpError(res, reply) : writeRecording(res, reply, timeline),
    noReply: (index) => overrun(`replay server: no answer for request #${index}`),
  });
  return { baseURL: server.baseURL, requests, overruns, close: () => server.close() };
}

async function writeRecording(
  res: ServerResponse,
  { step, body }: { step: number; body: Buffer },
  timeline: StreamTimeline,
): Promise<void> {
  const [head, finalEvent] = splitAtFinalEvent(body);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
  await write(res, head);
  await timeline.beforeResponseEnds(step);
  await write(res, finalEvent);
  await new Promise<void>((resolve) => res.end(resolve));
}

/** The recording up to its last event, and that event (with what follows it), byte for byte. */
export function splitAtFinalEvent(body: Buffer): [Buffer, Buffer] {
  let end = body.length;
  while (end > 0 && (body[end - 1] === 0x0a || body[end - 1] === 0x0d)) end -= 1;
  const cut = body.lastIndexOf('\n\n', end - 1);
  return cut < 0 ? [Buffer.alloc(0), body] : [body.subarray(0, cut + 2), body.subarray(cut + 2)];
}

function write(res: ServerResponse, bytes: Buffer): Promise<void> {
  if (res.destroyed || bytes.length === 0) return Promise.resolve();
  return new Promise((resolve, reject) => res.write(bytes, (error) => (error ? reject(error) : resolve())));
}

/** A 400 in the shape both OpenAI's and Anthropic's clients read a message from. */
function overrun(message: string): HttpErrorReply {
  return {
    kind: 'http-error',
    status: 400,
    body: { type: 'error', error: { type: 'invalid_request_error', message } },
  };
}
