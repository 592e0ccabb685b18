import type { Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import path from 'node:path';
import cookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyInstance, type FastifyServerFactory } from 'fastify';
import type { TurnClient } from '../client/turn-client';
import { registerCodecRoutes } from '../codec/codec-routes';
import { EncryptionCodec } from '../codec/encryption-codec';
import { resolveEncryption, type TurnEncryption } from '../codec/turn-data-converter';
import { registerAccessHook } from './access-hook';
import { ApiError } from './api-error';
import { CursorSeal } from './cursor-seal';
import type { DashboardConfig } from './dashboard-config';
import { type DashboardContext, withUpstreamDeadline } from './dashboard-context';
import { HealthFeed } from './health-feed';
import { LoginSessions } from './login-sessions';
import { registerActionRoutes } from './routes/action-routes';
import { registerBranchRoute } from './routes/branch-route';
import { registerConversationRoutes } from './routes/conversation-routes';
import { registerForkRoute } from './routes/fork-route';
import { registerGrantRoutes } from './routes/grant-routes';
import { registerHealthRoutes } from './routes/health-routes';
import { registerSessionRoutes } from './routes/session-routes';
import { registerTurnEventsRoute } from './routes/turn-events-route';
import { registerTurnsRoutes } from './routes/turns-routes';
import { registerVendorRoutes } from './routes/vendor-routes';
import { securityHeaders } from './security-headers';
import { TurnWatchHub } from './turn-watch-hub';
import type { TurnWatchSource } from './turn-watch-source';
import type { UpstreamContext } from './upstream-error';

/** The static front end: copied beside the compiled code by `npm run build`. */
export const publicDir = path.join(__dirname, 'public');

export interface DashboardServerOptions {
  client: TurnClient;
  upstream: UpstreamContext;
  config: DashboardConfig;
  /** What the live feeds watch through (default: `client`); a test wraps it to count. */
  watchSource?: TurnWatchSource;
  upstreamTimeoutMs?: number;
  healthIntervalMs?: number;
  /** Keys for the `/codec` routes (the Web UI's codec endpoint); unset: `DURABLE_TURNS_ENCRYPTION_KEYS`. */
  encryption?: TurnEncryption;
  /** How long a turn's feed outlives its last viewer. */
  lingerMs?: number;
  https?: { cert: Buffer; key: Buffer };
}

/** The dashboard as a Fastify app, not yet listening: `startDashboard` listens. */
export async function dashboardServer(options: DashboardServerOptions): Promise<{
  app: FastifyInstance;
  context: DashboardContext;
}> {
  const { client, config } = options;
  const source: TurnWatchSource = options.watchSource ?? {
    watch: (turnId, watchOptions) => client.watch(turnId, watchOptions),
    state: (turnId) => client.attach(turnId).state(),
  };
  const context: DashboardContext = {
    client,
    upstream: options.upstream,
    config,
    hub: new TurnWatchHub({ source, ...(options.lingerMs !== undefined && { lingerMs: options.lingerMs }) }),
    health: new HealthFeed({
      // Under the upstream deadline, so a read of an unreachable server ends and `close` need not wait long.
      read: () => withUpstreamDeadline({ context, fn: () => client.fleetHealth() }),
      readHistory: () => withUpstreamDeadline({ context, fn: () => client.healthHistory() }),
      intervalMs: options.healthIntervalMs ?? 2_000,
    }),
    cursors: new CursorSeal(),
    sessions: new LoginSessions(),
    upstreamTimeoutMs: options.upstreamTimeoutMs ?? 10_000,
  };
  const tls = options.https;
  // An https server answers requests as an http one does; typed as one, the app keeps one type.
  const serverFactory: FastifyServerFactory | undefined = tls
    ? (handler) => createHttpsServer(tls, handler) as unknown as HttpServer
    : undefined;
  const app: FastifyInstance = Fastify({
    logger: false,
    bodyLimit: 16 * 1024,
    // Event streams never go idle: close them too, or close() would wait for every viewer to leave.
    forceCloseConnections: true,
    // A turn id or call id is up to 256 characters, and `/ : @ + = # ~` in it arrive escaped (three
    // each): past the router's default of 100 a valid id was "no such path".
    routerOptions: { maxParamLength: 3 * 256 },
    ...(serverFactory && { serverFactory }),
  });
  await app.register(cookie);
  await app.register(fastifyStatic, { root: publicDir, index: 'index.html', cacheControl: false });
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.headers(securityHeaders);
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    return payload;
  });
  registerAccessHook({ app, config, sessions: context.sessions });
  app.setErrorHandler((error, _request, reply) => {
    const status =
      error instanceof ApiError
        ? error.status
        : typeof (error as { statusCode?: unknown }).statusCode === 'number'
          ? (error as { statusCode: number }).statusCode
          : 500;
    const message = error instanceof Error ? error.message : String(error);
    return reply.code(status).send({ error: message, status });
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({
      error: `no such path ${request.method} ${request.url.split('?')[0]}; docs/dashboard-api.md lists the API`,
      status: 404,
    }),
  );
  registerSessionRoutes({ app, context });
  registerTurnsRoutes({ app, context });
  registerTurnEventsRoute({ app, context });
  registerActionRoutes({ app, context });
  registerGrantRoutes({ app, context });
  registerForkRoute({ app, context });
  registerConversationRoutes({ app, context });
  registerBranchRoute({ app, context });
  registerHealthRoutes({ app, context });
  registerVendorRoutes({ app });
  // With keys, the dashboard is the Web UI's codec server too (`<dashboard>/codec`), in a scope of
  // its own so its CORS headers are on those routes only.
  const encryption = resolveEncryption(options.encryption);
  if (encryption)
    await app.register(
      async (scope) =>
        registerCodecRoutes({
          app: scope,
          codec: new EncryptionCodec(encryption),
          access: {
            ...(config.token !== undefined && !config.webUiCodecWithoutToken && { token: config.token }),
            origins: codecOrigins({ webUiUrl: config.webUiUrl }),
            listensOnLoopback: config.loopback,
          },
        }),
      { prefix: '/codec' },
    );
  app.addHook('onClose', async () => {
    context.hub.close();
    await context.health.close();
  });
  return { app, context };
}

/** The Web UI origins that may call the codec routes: the configured Web UI's, and the dev server's. */
function codecOrigins({ webUiUrl }: { webUiUrl: string | undefined }): string[] {
  const origins = new Set(['http://127.0.0.1:8233', 'http://localhost:8233']);
  if (webUiUrl) origins.add(new URL(webUiUrl).origin);
  return [...origins];
}
