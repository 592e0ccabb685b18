import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeEventStream, writeHttpError } from '../support/models/recording-server';
import type { FuzzCase, FuzzReply, ServedRequest } from './fuzz-case';
import { closingAnswer } from './fuzz-cases';

export interface FuzzServer {
  /** The API root for an OpenAI-compatible provider. */
  baseURL: string;
  /** Scripts a turn: its model requests get the case's replies in order. */
  register(fuzzCase: FuzzCase): void;
  /** What the turn's requests were answered with, in order. */
  served(turnId: string): ServedRequest[];
  /** Forgets a finished turn (a run of hundreds keeps nothing it no longer needs). */
  forget(turnId: string): void;
  close(): Promise<void>;
}

/**
 * One local chat-completions server for a whole fuzz run, shared by concurrent turns: a request is
 * routed to its turn by its `Idempotency-Key` (`<turnId>/model/<responseIndex>`, the same on both
 * executors). Bodies are read and dropped, never kept: a run moves hundreds of megabytes.
 */
export async function startFuzzServer(): Promise<FuzzServer> {
  const turns = new Map<string, { replies: readonly FuzzReply[]; served: ServedRequest[] }>();
  const server = createServer((req, res) => {
    void drain(req)
      .then(async () => {
        const key = String(req.headers['idempotency-key'] ?? '');
        const match = /^(.*)\/model\/(\d+)$/.exec(key);
        const turn = match?.[1] === undefined ? undefined : turns.get(match[1]);
        if (!match?.[1] || !turn || req.url !== '/v1/chat/completions') {
          const message = `fuzz server: no turn scripted for ${req.method} ${req.url} with idempotency key ${JSON.stringify(key)}`;
          return writeHttpError(res, { kind: 'http-error', status: 404, body: { error: { message } } });
        }
        const scripted = turn.replies[turn.served.length];
        const reply = scripted ?? closingAnswer(match[1]);
        turn.served.push({ responseIndex: Number(match[2]), reply, scripted: scripted !== undefined });
        if (reply.kind === 'http-error')
          return writeHttpError(res, {
            kind: 'http-error',
            status: reply.status,
            ...(reply.body === undefined ? {} : { body: reply.body }),
            headers: reply.headers,
          });
        const events = reply.events.map((text) => ({ text }));
        const { ending } = reply;
        switch (ending.kind) {
          case 'complete':
            return writeEventStream(res, events);
          case 'hang-up':
            req.socket.destroy();
            return;
          case 'reset':
            return writeEventStream(res, events, ending.afterEvents);
          case 'clean-end':
            return writeEventStream(res, events.slice(0, ending.afterEvents));
          default:
            throw new Error(`unknown ending ${JSON.stringify(ending satisfies never)}`);
        }
      })
      .catch((error: unknown) => {
        // The client hung up first (it stops reading at the first bad chunk): nothing to answer.
        res.destroy(error instanceof Error ? error : new Error(String(error)));
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    register: (fuzzCase) => {
      turns.set(fuzzCase.turnId, { replies: fuzzCase.replies, served: [] });
    },
    served: (turnId) => turns.get(turnId)?.served ?? [],
    forget: (turnId) => {
      turns.delete(turnId);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function drain(req: IncomingMessage): Promise<void> {
  return new Promise((resolve, reject) => {
    req.on('data', () => {});
    req.on('end', resolve);
    req.on('error', reject);
  });
}
