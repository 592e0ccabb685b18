import cors from '@fastify/cors';
import type { Payload, PayloadCodec } from '@temporalio/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { isLoopback } from './is-loopback';
import { PayloadKeyMissingError } from './payload-key-missing-error';
import { secretsMatch } from './secrets-match';

/**
 * The Temporal codec server protocol (what the Web UI and `temporal --codec-endpoint` call):
 * `POST /encode` and `POST /decode` (also under `/<namespace>/…`, for the CLI's templating), a
 * proto3-JSON body `{ payloads: [{ metadata: { k: base64 }, data: base64 }] }` answered in the
 * same shape.
 */
const base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'base64');
const payloadsBodySchema = z.object({
  payloads: z
    .array(z.object({ metadata: z.record(z.string(), base64).optional(), data: base64.optional() }))
    .max(10_000),
});

export interface CodecAccess {
  /** A bearer token that may use the codec (`Authorization: Bearer …`). */
  token?: string;
  /** Or: whether a bearer token is an access token of the Web UI's identity provider (`oidcVerifier`). */
  verifyAccessToken?: (token: string) => Promise<boolean>;
  /**
   * Origins of Web UIs whose pages may call it (CORS), e.g. `http://127.0.0.1:8233`. Only when no
   * token and no identity provider is configured, their requests from this machine to a server
   * listening on loopback only need no token (the dev server's UI cannot send one). An `Origin`
   * header is not an identity — any local process can send one — so with a credential configured
   * it never stands in for it.
   */
  origins: readonly string[];
  /** Where the server listens: only a loopback listener lets tokenless requests through. */
  listensOnLoopback: boolean;
}

function fromWire(body: z.infer<typeof payloadsBodySchema>): Payload[] {
  return body.payloads.map((p) => ({
    metadata: Object.fromEntries(
      Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')]),
    ),
    data: Buffer.from(p.data ?? '', 'base64'),
  }));
}

function toWire(payloads: Payload[]): { payloads: { metadata: Record<string, string>; data: string }[] } {
  return {
    payloads: payloads.map((p) => ({
      metadata: Object.fromEntries(
        Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? []).toString('base64')]),
      ),
      data: Buffer.from(p.data ?? []).toString('base64'),
    })),
  };
}

/** Whether the request may use the codec; the reason when not. */
export async function codecAccessRefusal({
  access,
  authorization,
  origin,
  remoteAddress,
}: {
  access: CodecAccess;
  authorization: string | undefined;
  origin: string | undefined;
  remoteAddress: string;
}): Promise<string | undefined> {
  const bearer = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
  if (bearer !== undefined) {
    if (access.token !== undefined && secretsMatch({ presented: bearer, expected: access.token }))
      return undefined;
    if (access.verifyAccessToken && (await access.verifyAccessToken(bearer))) return undefined;
    return access.verifyAccessToken
      ? 'the bearer token is neither the codec token nor a valid access token of the identity provider'
      : 'the bearer token is not the codec token';
  }
  const anyCredential = access.token !== undefined || access.verifyAccessToken !== undefined;
  const local = access.listensOnLoopback && isLoopback({ host: remoteAddress });
  if (!anyCredential && local && (origin === undefined || access.origins.includes(origin))) return undefined;
  return anyCredential
    ? 'send Authorization: Bearer <the codec token, or the Web UI’s access token>'
    : 'the codec answers only this machine’s allowed Web UI origins without a token, and none is configured for others';
}

/** Registers the codec routes (under the app's prefix) on a Fastify app. */
export async function registerCodecRoutes({
  app,
  codec,
  access,
}: {
  app: FastifyInstance;
  codec: PayloadCodec;
  access: CodecAccess;
}): Promise<void> {
  await app.register(cors, {
    origin: [...access.origins],
    methods: ['POST'],
    allowedHeaders: ['Content-Type', 'X-Namespace', 'Authorization'],
    credentials: true,
    maxAge: 600,
  });
  // Before the body is read (up to 16 MB): a caller without access costs nothing but its headers.
  const authenticate = async (request: FastifyRequest, reply: FastifyReply) => {
    const refusal = await codecAccessRefusal({
      access,
      authorization: request.headers.authorization,
      origin: request.headers.origin,
      remoteAddress: request.socket.remoteAddress ?? '',
    });
    if (refusal) return reply.code(401).send({ error: `not authorized: ${refusal}` });
  };
  const handle = (direction: 'encode' | 'decode') => async (request: FastifyRequest, reply: FastifyReply) => {
    const parsed = payloadsBodySchema.safeParse(request.body);
    if (!parsed.success)
      return reply.code(400).send({
        error: `expected { payloads: [{ metadata: { key: base64 }, data: base64 }] }: ${parsed.error.issues[0]?.message ?? 'invalid'}`,
      });
    try {
      const payloads = fromWire(parsed.data);
      const done = direction === 'encode' ? await codec.encode(payloads) : await codec.decode(payloads);
      return reply.send(toWire(done));
    } catch (error) {
      // A payload under a key this server lacks: the caller learns which key, nothing else.
      if (error instanceof PayloadKeyMissingError) return reply.code(422).send({ error: error.message });
      throw error;
    }
  };
  // `public` to the dashboard's own access hook: these routes decide access themselves.
  const config = { access: 'public' };
  for (const direction of ['encode', 'decode'] as const) {
    app.post(`/${direction}`, { config, onRequest: authenticate }, handle(direction));
    app.post(`/:namespace/${direction}`, { config, onRequest: authenticate }, handle(direction));
  }
}
