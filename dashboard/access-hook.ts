import type { FastifyInstance } from 'fastify';
import { type AccessKind, accessDecision } from './access-decision';
import type { DashboardConfig } from './dashboard-config';
import type { LoginSessions } from './login-sessions';

/** Which access a route needs: set as route `config.access`; a route without one is a read. */
export type RouteAccess = AccessKind | 'public';

/** Route options that make the hook demand the token (and CSRF) before anything else runs. */
export const actionRoute = { config: { access: 'action' } } as const;

/**
 * Checks every request before Fastify parses its body or looks at its path parameters, so a
 * refused action touches nothing: no turn is looked up, no body read. Unknown paths are reads
 * (beyond loopback, probing for them needs the token too).
 */
export function registerAccessHook({
  app,
  config,
  sessions,
}: {
  app: FastifyInstance;
  config: DashboardConfig;
  sessions: LoginSessions;
}): void {
  app.addHook('onRequest', async (request, reply) => {
    const access = (request.routeOptions.config as { access?: RouteAccess } | undefined)?.access ?? 'read';
    if (access === 'public') return;
    const decision = accessDecision({
      request: { headers: request.headers, cookies: request.cookies },
      config,
      kind: access,
      sessions,
    });
    if (decision.allowed) return;
    // A page rather than an API answer: say where to log in.
    if (!request.url.startsWith('/api/'))
      return reply
        .code(decision.status)
        .type('text/html; charset=utf-8')
        .send(
          `<!doctype html><title>durable-turns dashboard</title><p>${decision.status === 401 ? 'Not logged in' : 'Refused'}: <a href="/login">log in</a>.</p>`,
        );
    return reply.code(decision.status).send({ error: decision.message, status: decision.status });
  });
}
