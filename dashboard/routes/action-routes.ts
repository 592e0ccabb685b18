import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { actionRoute } from '../access-hook';
import { ApiError, parseInput } from '../api-error';
import {
  agentCallQuerySchema,
  approveBodySchema,
  callParamsSchema,
  cancelResponseSchema,
  decideResponseSchema,
  rejectBodySchema,
  respondBodySchema,
  turnParamsSchema,
} from '../api-schemas';
import { approverOf } from '../approver-identity';
import { type DashboardContext, withUpstreamDeadline } from '../dashboard-context';
import { findTurn } from '../find-turn';
import { sendJson } from '../send-json';
import { updateRunningTurn } from '../update-running-turn';
import { upstreamError } from '../upstream-error';

/**
 * The body of each decision on a waiting call: `approve` may carry edited arguments (`input`) and
 * "always" (`remember`), `respond` carries the call's output; each may say why.
 */
const decisionBodies = { approve: approveBodySchema, reject: rejectBodySchema, respond: respondBodySchema };
type Verb = keyof typeof decisionBodies;

/** `POST /api/turns/:id/cancel`, and `…/calls/:callId/approve`, `…/reject` and `…/respond`. */
export function registerActionRoutes({
  app,
  context,
}: {
  app: FastifyInstance;
  context: DashboardContext;
}): void {
  app.post('/api/turns/:id/cancel', actionRoute, async (request, reply) => {
    const { id } = parseInput({ schema: turnParamsSchema, value: request.params, where: 'path' });
    const found = await findTurn({ context, turnId: id });
    if (!found.running)
      throw new ApiError(
        409,
        `turn ${id} already ended (${found.workflowStatus.toLowerCase()}); there is nothing to cancel`,
      );
    await withUpstreamDeadline({ context, fn: () => context.client.attach(id).cancel() }).catch(
      (error: unknown) => {
        throw upstreamError({ error, context: context.upstream, turnId: id });
      },
    );
    return sendJson({
      reply,
      schema: cancelResponseSchema,
      value: { turnId: id, cancelRequested: true },
      status: 202,
    });
  });

  for (const verb of Object.keys(decisionBodies) as Verb[])
    app.post(`/api/turns/:id/calls/:callId/${verb}`, actionRoute, async (request, reply) => {
      const answer = await decide({ context, request, verb });
      return sendJson({ reply, schema: decideResponseSchema, value: answer });
    });
}

/**
 * Sends one decision as this request's approver (see `approverOf`). One the turn refuses — the
 * call does not wait, edited arguments fail the tool's schema, the grant's id is in force — is a
 * 409 with its reason.
 */
async function decide({
  context,
  request,
  verb,
}: {
  context: DashboardContext;
  request: FastifyRequest;
  verb: Verb;
}): Promise<z.input<typeof decideResponseSchema>> {
  const { id, callId } = parseInput({ schema: callParamsSchema, value: request.params, where: 'path' });
  // A call of a sub-agent: which of this turn's calls runs it (when several report the call id).
  const { agentCall } = parseInput({
    schema: agentCallQuerySchema,
    value: request.query ?? {},
    where: 'query',
  });
  const body = parseInput({ schema: decisionBodies[verb], value: request.body ?? undefined, where: 'body' });
  const by = approverOf({ headers: request.headers, config: context.config });
  const decision = { toolCallId: callId, decision: verb, ...body, by, via: 'dashboard' as const };
  // A call of a sub-agent is decided on its own turn (the client sends it on).
  let decidedOn = id;
  await updateRunningTurn({
    context,
    turnId: id,
    nothing: 'no call of it waits for a decision',
    cannot: `${verb} ${callId} of turn ${id}`,
    send: async (handle) => {
      decidedOn = await handle.decide(decision, agentCall ? { agentCallId: agentCall } : {});
    },
  });
  // The grant's id when the body left it to the turn it was decided on (see `ApprovalDecision.remember`).
  const remember = 'remember' in body ? body.remember : undefined;
  const grantId = remember && (remember.grantId ?? `${decidedOn}/${callId}`);
  return {
    turnId: id,
    approved: verb === 'approve',
    ...decision,
    ...(grantId !== undefined && { grantId }),
    ...(decidedOn !== id && { decidedOn }),
  };
}
