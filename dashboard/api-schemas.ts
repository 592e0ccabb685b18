import { z } from 'zod';
import { fleetHealthViewSchema } from '../client/fleet-health-view';
import { healthHistorySchema } from '../contract/fleet-health-history';
import {
  approvalDecisionObjectSchema,
  argumentMatcherSchema,
  decisionViaSchema,
  forkPointSchema,
  grantIdSchema,
  maxRespondChars,
  toolOutputSchema,
  turnIdSchema,
  turnStatusSchema,
} from '../core';

/** The schemas of the JSON API: requests as they arrive, responses as they leave. */

/** A page's cursor: the `nextCursor` of the page before (sealed by `CursorSeal`). */
export const cursorSchema = z
  .string()
  .max(8_192)
  .regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, 'a cursor is the nextCursor of an earlier page');
/** How many items a page of a list holds. */
export const pageLimitSchema = z.coerce.number().int().min(1).max(200).default(50);

export const turnListQuerySchema = z.strictObject({
  status: z.enum(['running', ...turnStatusSchema.options]).optional(),
  conversation: z.string().min(1).max(256).optional(),
  waitingForApproval: z
    .enum(['true', 'false'], 'expected true or false')
    .transform((v) => v === 'true')
    .optional(),
  /** Turns whose id or conversation id starts with this. */
  search: z.string().min(1).max(256).optional(),
  cursor: cursorSchema.optional(),
  limit: pageLimitSchema,
});

export const turnParamsSchema = z.strictObject({ id: turnIdSchema });
export const callParamsSchema = z.strictObject({ id: turnIdSchema, callId: z.string().min(1).max(256) });
/** A decision on a call of a sub-agent, sent to its parent: the parent's call that runs the sub-agent. */
export const agentCallQuerySchema = z.strictObject({ agentCall: z.string().min(1).max(256).optional() });
/** Why, kept in the journal with the decision (a rejected call's model reads it). */
const reasonSchema = z.string().min(1).max(2_000);
/**
 * `…/approve`: `input`, when given, runs in place of the model's arguments (the turn checks it
 * against the tool's schema); `remember` also lets the tool's later calls run ("approve always").
 */
export const approveBodySchema = z
  .strictObject({
    reason: reasonSchema.optional(),
    input: z.unknown().optional(),
    remember: approvalDecisionObjectSchema.shape.remember,
  })
  .default({});
export const rejectBodySchema = z.strictObject({ reason: reasonSchema.optional() }).default({});
/** `…/respond`: `output` is the call's output, as if the tool had answered (the call does not run). */
export const respondBodySchema = z.strictObject({
  output: z.string().min(1).max(maxRespondChars),
  reason: reasonSchema.optional(),
});
export const grantParamsSchema = z.strictObject({ id: turnIdSchema, grantId: grantIdSchema });
/**
 * `POST /api/turns/:id/grants`: a grant's own fields (`ApprovalGrant`); who gave it and through
 * what are the dashboard's to say, as for decisions. Its id defaults to the tool's name.
 */
export const grantBodySchema = z.strictObject({
  toolName: z.string().min(1).max(200),
  grantId: grantIdSchema.optional(),
  match: z.array(argumentMatcherSchema).max(20).default([]),
  scope: z.enum(['turn', 'conversation']).default('turn'),
  reason: reasonSchema.optional(),
});
/**
 * `POST /api/turns/:id/fork`: the fork point (`ForkPoint`), the new turn's id (default
 * `<id>-fork-<random>`) and model (default the source's), the user's next message, and outputs of
 * calls before the point to replace (`ToolOutput`s by call id).
 */
export const forkBodySchema = z.strictObject({
  at: forkPointSchema,
  turnId: turnIdSchema.optional(),
  model: z.string().min(1).max(200).optional(),
  message: z.string().max(8_000).regex(/\S/, 'message is blank: write it, or leave it out').optional(),
  outputs: z.record(z.string().min(1).max(256), toolOutputSchema).optional(),
});
/** SSE resumption: the `id` of the last entry the client saw (an entry's `seq`). */
export const lastEventIdSchema = z.coerce.number().int().nonnegative().default(0);
export const loginBodySchema = z.strictObject({ token: z.string().min(1).max(1_024) });

export const turnSummarySchema = z.object({
  turnId: z.string(),
  status: z.string(),
  conversationId: z.string().optional(),
  waitingForApproval: z.boolean(),
  startTime: z.iso.datetime(),
  closeTime: z.iso.datetime().optional(),
  durationMs: z.number().int().nonnegative().optional(),
  /** Absent for turns begun before workers recorded them (see `turnSearchAttributes`). */
  model: z.string().optional(),
  toolCalls: z.number().int().nonnegative().optional(),
  tokens: z.number().int().nonnegative().optional(),
  webUiUrl: z.url().optional(),
});
export type TurnSummaryBody = z.infer<typeof turnSummarySchema>;

export const turnListResponseSchema = z.object({
  namespace: z.string(),
  turns: z.array(turnSummarySchema),
  nextCursor: z.string().optional(),
});

export const turnResponseSchema = z.object({
  turnId: z.string(),
  namespace: z.string(),
  /** The workflow's status on the server: RUNNING, COMPLETED, CANCELLED, FAILED, TERMINATED, … */
  workflowStatus: z.string(),
  running: z.boolean(),
  /** Once it ended: when (its last run's close). */
  closeTime: z.iso.datetime().optional(),
  webUiUrl: z.url().optional(),
  /** While it runs: what it is doing now (`TurnStateView`). */
  state: z.record(z.string(), z.unknown()).optional(),
  /** Once it ended: its result (`TurnResult`). */
  result: z.record(z.string(), z.unknown()).optional(),
  /** Ended without a result (terminated, failed, timed out): why, as far as the server says. */
  problem: z.string().optional(),
});

export const cancelResponseSchema = z.object({ turnId: z.string(), cancelRequested: z.literal(true) });
export const decideResponseSchema = z.object({
  turnId: z.string(),
  toolCallId: z.string(),
  decision: z.enum(['approve', 'reject', 'respond']),
  /** Whether the call runs (`approve`): the whole answer before decisions could edit or respond. */
  approved: z.boolean(),
  reason: z.string().optional(),
  /** Who the decision is recorded as, and through what. */
  by: z.string(),
  via: decisionViaSchema,
  /** `approve` with edited arguments: what the call runs with. */
  input: z.unknown().optional(),
  /** `respond`: the call's output. */
  output: z.string().optional(),
  /** "Approve always": what the grant covers, and its id (given, or the turn's default `<turn id>/<call id>`). */
  remember: z.record(z.string(), z.unknown()).optional(),
  grantId: z.string().optional(),
  /** The call waited in a sub-agent of the turn (`TurnStateView.subAgentApprovals`): its turn, where it was decided. */
  decidedOn: z.string().optional(),
});
/** A grant as it was given (`ApprovalGrant`), by whom and through what. */
export const grantResponseSchema = z.object({
  turnId: z.string(),
  grantId: z.string(),
  toolName: z.string(),
  match: z.array(z.record(z.string(), z.unknown())),
  scope: z.enum(['turn', 'conversation']),
  reason: z.string().optional(),
  by: z.string(),
  via: decisionViaSchema,
});
export const revokeResponseSchema = z.object({
  turnId: z.string(),
  grantId: z.string(),
  revoked: z.literal(true),
  by: z.string(),
  via: decisionViaSchema,
});
/** A fork started: the new turn, where it started from, and the model it asks. */
export const forkResponseSchema = z.object({
  turnId: z.string(),
  from: z.string(),
  at: forkPointSchema,
  model: z.string(),
});
export const healthResponseSchema = fleetHealthViewSchema;
/** `GET /api/health/history` and the `history` event: the fleet health workflow's points, oldest first. */
export const healthHistoryResponseSchema = healthHistorySchema;
export const sessionResponseSchema = z.object({
  authenticated: z.boolean(),
  via: z.enum(['bearer', 'cookie', 'loopback']).optional(),
  /** For a cookie session: the value actions send in `x-csrf-token`. */
  csrfToken: z.string().optional(),
  /** Whether actions can work at all: false when the dashboard was started without a token. */
  actionsEnabled: z.boolean(),
});
export const errorResponseSchema = z.object({ error: z.string(), status: z.number().int() });
