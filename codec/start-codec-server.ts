import type { Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import Fastify, { type FastifyServerFactory } from 'fastify';
import { type CodecAccess, registerCodecRoutes } from './codec-routes';
import { EncryptionCodec } from './encryption-codec';
import type { EncryptionKeys } from './encryption-keys';
import { isLoopback } from './is-loopback';

export interface CodecServer {
  url: string;
  close(): Promise<void>;
}

/**
 * A codec server for the Temporal Web UI and CLI (`durable-turns codec-server`): the turn
 * encryption codec over the codec server protocol, on its own port.
 */
export async function startCodecServer({
  keys,
  host,
  port,
  access,
  https,
}: {
  keys: EncryptionKeys;
  host: string;
  port: number;
  access: Omit<CodecAccess, 'listensOnLoopback'> & { listensOnLoopback?: boolean };
  https?: { cert: Buffer; key: Buffer };
}): Promise<CodecServer> {
  const serverFactory: FastifyServerFactory | undefined = https
    ? (handler) => createHttpsServer(https, handler) as unknown as HttpServer
    : undefined;
  // History payloads go up to 2 MiB each, and the UI sends a page of them at once.
  const app = Fastify({
    logger: false,
    bodyLimit: 16 * 1024 * 1024,
    ...(serverFactory && { serverFactory }),
  });
  await registerCodecRoutes({
    app,
    codec: new EncryptionCodec({ keys }),
    access: { ...access, listensOnLoopback: access.listensOnLoopback ?? isLoopback({ host }) },
  });
  await app.listen({ host, port });
  const address = app.server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return { url: `${https ? 'https' : 'http'}://${shown}:${bound}`, close: () => app.close() };
}
