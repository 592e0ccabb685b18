import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request a test server received, body parsed as JSON when it was JSON. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/** Answer a request with an HTTP error instead of a stream. */
export interface HttpErrorReply {
  kind: 'http-error';
  status: number;
  /** JSON body (the provider's error shape); omitted for an empty body. */
  body?: unknown;
  headers?: Record<string, string>;
}

/** One reply per request, in order, or a function choosing the reply. */
export type Script<Reply> = readonly Reply[] | ((request: RecordedRequest, index: number) => Reply);

export interface TestServer {
  /** The API root to give a provider as `baseURL`, e.g. `http://127.0.0.1:51234/v1`. */
  baseURL: string;
  /** Every request received on the API path, in arrival order. */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** One server-sent event as written on the wire, and how long to wait before writing it. */
export interface WireEvent {
  text: string;
  delayMs?: number;
  /** Written only once this settles (after `delayMs`): a test holds the stream at a point of its own. */
  after?: Promise<unknown>;
}

/**
 * A real HTTP server on 127.0.0.1 with an ephemeral port that records each POST to `path` and hands
 * it to `respond`. A request the script has no reply for gets a 400 naming it, so a test that asks
 * more often than scripted fails loudly instead of hanging or being retried.
 */
export async function startRecordingServer<Reply>({
  path,
  script,
  respond,
  noReply,
}: {
  path: string;
  script: Script<Reply>;
  respond: (reply: Reply, request: RecordedRequest, res: ServerResponse) => Promise<void>;
  /** The error body for a request beyond the script. */
  noReply: (index: number) => HttpErrorReply;
}): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: parseJson(raw),
      };
      if (req.method !== 'POST' || recorded.path !== path) {
        void writeHttpError(res, {
          kind: 'http-error',
          status: 404,
          body: { error: `no route ${recorded.path}` },
        });
        return;
      }
      const index = requests.length;
      requests.push(recorded);
      const reply = typeof script === 'function' ? script(recorded, index) : script[index];
      const done = reply === undefined ? writeHttpError(res, noReply(index)) : respond(reply, recorded, res);
      done.catch((error: unknown) => {
        res.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}${path.slice(0, path.indexOf('/', 1))}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

export async function writeHttpError(res: ServerResponse, reply: HttpErrorReply): Promise<void> {
  const body = reply.body === undefined ? '' : JSON.stringify(reply.body);
  res.writeHead(reply.status, {
    ...(body ? { 'content-type': 'application/json' } : {}),
    ...reply.headers,
  });
  await new Promise<void>((resolve) => res.end(body, resolve));
}

/**
 * Writes server-sent events one by one, each flushed to the socket before the next. With
 * `truncateAfter`, the socket is destroyed after that many events: the client sees a connection
 * that died mid-response, with no end of stream.
 */
export async function writeEventStream(
  res: ServerResponse,
  events: readonly WireEvent[],
  truncateAfter?: number,
): Promise<void> {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  res.flushHeaders();
  for (const [index, event] of events.entries()) {
    if (truncateAfter !== undefined && index >= truncateAfter) {
      await sleep(20);
      res.socket?.destroy();
      return;
    }
    if (event.delayMs) await sleep(event.delayMs);
    if (event.after) await event.after;
    if (res.destroyed) return;
    await new Promise<void>((resolve, reject) =>
      res.write(event.text, (error) => (error ? reject(error) : resolve())),
    );
  }
  await new Promise<void>((resolve) => res.end(resolve));
}

/** The events with raw `data:` lines spliced in, each after the scripted chunk it names. */
export function withRawData(
  events: readonly WireEvent[],
  inject: readonly { afterChunks: number; data: string }[] = [],
): WireEvent[] {
  const out: WireEvent[] = [];
  for (let index = 0; index <= events.length; index++) {
    for (const raw of inject) if (raw.afterChunks === index) out.push({ text: `data: ${raw.data}\n\n` });
    const event = events[index];
    if (event) out.push(event);
  }
  return out;
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
