import type { FastifyInstance } from 'fastify';
import { actionRoute } from '../access-hook';
import { parseInput } from '../api-error';
import {
  grantBodySchema,
  grantParamsSchema,
  grantResponseSchema,
  revokeResponseSchema,
  turnParamsSchema,
} from '../api-schemas';
import { approverOf } from '../approver-identity';
import type { DashboardContext } from '../dashboard-context';
import { sendJson } from '../send-json';
import { updateRunningTurn } from '../update-running-turn';

/**
 * `POST /api/turns/:id/grants` ("always allow" a tool's calls in a running turn, waiting ones
 * included) and `…/grants/:grantId/revoke`, each as this request's approver (see `approverOf`).
 * What the turn refuses — a grant whose id is in force, a revocation of one that is not — is a 409
 * with its reason.
 */
export function registerGrantRoutes({
  app,
  context,
}: {
  app: FastifyInstance;
  context: DashboardContext;
}): void {
  app.post('/api/turns/:id/grants', actionRoute, async (request, reply) => {
    const { id } = parseInput({ schema: turnParamsSchema, value: request.params, where: 'path' });
    const body = parseInput({ schema: grantBodySchema, value: request.body ?? undefined, where: 'body' });
    const by = approverOf({ headers: request.headers, config: context.config });
    const grant = { ...body, grantId: body.grantId ?? body.toolName, by, via: 'dashboard' as const };
    await updateRunningTurn({
      context,
      turnId: id,
      nothing: 'it takes no grant',
      cannot: `grant ${grant.grantId} in turn ${id}`,
      send: (handle) => handle.grant(grant),
    });
    return sendJson({ reply, schema: grantResponseSchema, value: { turnId: id, ...grant } });
  });

  app.post('/api/turns/:id/grants/:grantId/revoke', actionRoute, async (request, reply) => {
    const { id, grantId } = parseInput({ schema: grantParamsSchema, value: request.params, where: 'path' });
    const by = approverOf({ headers: request.headers, config: context.config });
    await updateRunningTurn({
      context,
      turnId: id,
      nothing: 'there is no grant to revoke',
      cannot: `revoke grant ${grantId} of turn ${id}`,
      send: (handle) => handle.revoke(grantId, { by, via: 'dashboard' }),
    });
    const value = { turnId: id, grantId, revoked: true as const, by, via: 'dashboard' as const };
    return sendJson({ reply, schema: revokeResponseSchema, value });
  });
}
