import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { secretsMatch } from '../../codec/secrets-match';
import { credentialOf, sameOrigin, schemeOf } from '../access-decision';
import { ApiError, parseInput } from '../api-error';
import { loginBodySchema, sessionResponseSchema } from '../api-schemas';
import { tokenEnvVar } from '../dashboard-config';
import type { DashboardContext } from '../dashboard-context';
import { sendJson } from '../send-json';
import { cookieOptions, csrfCookie, sessionCookie } from '../session-cookies';

const open = { config: { access: 'public' } } as const;

/** The login page, `POST /api/login` (token → cookies), `POST /api/logout`, `GET /api/session`. */
export function registerSessionRoutes({
  app,
  context,
}: {
  app: FastifyInstance;
  context: DashboardContext;
}): void {
  const { token } = context.config;
  const { sessions } = context;
  const scheme = schemeOf(context.config);

  app.get('/login', open, (_request, reply) => reply.sendFile('login.html'));
  for (const file of ['login.js', 'style.css'])
    app.get(`/${file}`, open, (_request, reply) => reply.sendFile(path.basename(file)));

  app.post('/api/login', open, async (request, reply) => {
    const origin = request.headers.origin;
    // Login CSRF: another site must not log a browser into this dashboard with its own token.
    if (!sameOrigin({ origin, host: request.headers.host, scheme }))
      throw new ApiError(403, `cross-origin login refused: Origin ${origin} is not this dashboard`);
    const body = parseInput({ schema: loginBodySchema, value: request.body, where: 'body' });
    if (token === undefined)
      throw new ApiError(401, `this dashboard has no token to log in with: start it with ${tokenEnvVar} set`);
    if (!secretsMatch({ presented: body.token, expected: token }))
      throw new ApiError(401, `wrong token: use the value of ${tokenEnvVar} the dashboard was started with`);
    // A login of its own: a random id this process holds until logout (or its lifetime, or a restart).
    const session = sessions.create();
    const csrfToken = session.csrf;
    reply.setCookie(sessionCookie, session.id, { ...cookieOptions, httpOnly: true });
    reply.setCookie(csrfCookie, csrfToken, { ...cookieOptions, httpOnly: false });
    return sendJson({
      reply,
      schema: sessionResponseSchema,
      value: { authenticated: true, via: 'cookie', csrfToken, actionsEnabled: true },
    });
  });

  app.post('/api/logout', open, async (request, reply) => {
    const origin = request.headers.origin;
    // Another site must not log a browser out either.
    if (!sameOrigin({ origin, host: request.headers.host, scheme }))
      throw new ApiError(403, `cross-origin logout refused: Origin ${origin} is not this dashboard`);
    // The login is forgotten here, not only in this browser: its cookie no longer opens anything.
    sessions.delete(request.cookies[sessionCookie]);
    reply.clearCookie(sessionCookie, cookieOptions);
    reply.clearCookie(csrfCookie, cookieOptions);
    return reply.code(204).send();
  });

  app.get('/api/session', open, async (request, reply) => {
    const credential = credentialOf({
      request: { headers: request.headers, cookies: request.cookies },
      token,
      sessions,
    });
    const csrfToken =
      credential === 'cookie' ? sessions.get(request.cookies[sessionCookie])?.csrf : undefined;
    const authenticated = credential === 'bearer' || credential === 'cookie';
    return sendJson({
      reply,
      schema: sessionResponseSchema,
      value: {
        authenticated,
        ...(authenticated
          ? { via: credential }
          : context.config.loopback && credential === 'none'
            ? { via: 'loopback' }
            : {}),
        ...(csrfToken !== undefined && { csrfToken }),
        actionsEnabled: token !== undefined,
      },
    });
  });
}
