import type { FastifyReply, FastifyRequest } from 'fastify';
import { securityHeaders } from './security-headers';
import type { TurnSubscriber } from './shared-turn-watch';
import { sseFrame } from './sse-message';

/** Idle proxies drop a silent connection; a comment line this often keeps it open. */
const keepAliveMs = 15_000;

/**
 * Turns the reply into an event stream and returns it as a subscriber; `onClose` runs once,
 * when the viewer goes or the stream is closed from this side.
 */
export function openSse({
  request,
  reply,
  onClose,
}: {
  request: FastifyRequest;
  reply: FastifyReply;
  onClose: () => void;
}): TurnSubscriber {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    ...securityHeaders,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    // nginx and friends buffer responses unless told not to.
    'x-accel-buffering': 'no',
  });
  raw.write('retry: 2000\n\n');
  const keepAlive = setInterval(() => raw.write(': keep-alive\n\n'), keepAliveMs).unref();
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(keepAlive);
    onClose();
    raw.end();
  };
  request.raw.on('close', close);
  return {
    send: (message) => {
      if (!closed) raw.write(sseFrame({ message }));
    },
    close,
  };
}
