import { z } from 'zod';
import { approvalGrantSchema, grantIdSchema } from './approval-grant';
import { attemptResultSchema } from './attempt-result';
import { decisionViaSchema } from './decision-via';
import { assistantMessageSchema, messageSchema, userMessageSchema } from './messages';
import { preparedCallSchema } from './prepared-call';
import { toolOutputSchema } from './tool-output';
import { turnConfigSchema } from './turn-config';
import { haltReasonSchema, turnStatusSchema } from './turn-status';
import { usageSchema } from './usage';

/**
 * The journal is the authority for a turn: state is rebuilt by replaying it. It holds two kinds of
 * entries:
 *
 * - **Transcript events** say what the turn *is* — the input, each model response, each call's one
 *   output, how it ended. They are recorded in batch order however the calls ran, so the same
 *   script gives the same events in sequential and parallel mode and on every executor.
 * - **Execution records** say how this host carried it out — when an attempt started or finished,
 *   an approval, a halt. Their order depends on timing; recovery needs them (a started attempt
 *   without a finish is an outcome unknown), comparisons do not.
 */
export const transcriptEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('turn.started'),
    turnId: z.string(),
    input: z.array(messageSchema),
    /**
     * The engine rules the turn runs under, for its whole life (see `engineRevision`); absent in
     * journals written before revisions existed, which run under revision 1.
     */
    revision: z.number().int().positive().optional(),
  }),
  z.object({
    type: z.literal('model.requested'),
    responseIndex: z.number().int().nonnegative(),
    /** A stateful continuation: the provider's id of the response this request continues from. */
    continuesFrom: z.string().optional(),
  }),
  z.object({
    type: z.literal('model.responded'),
    responseIndex: z.number().int().nonnegative(),
    message: assistantMessageSchema,
    calls: z.array(preparedCallSchema),
    usage: usageSchema,
    finishReason: z.string(),
    /** The provider's id for the response: the receipt that the request was accepted. */
    responseId: z.string().optional(),
  }),
  z.object({ type: z.literal('tool.completed'), toolCallId: z.string(), output: toolOutputSchema }),
  /**
   * Outputs of background calls, delivered together at a model-request boundary (or before the turn
   * ends) in launch order: the transcript gets one user message, a text part per call.
   */
  z.object({
    type: z.literal('background.delivered'),
    deliveries: z
      .array(z.object({ toolCallId: z.string(), toolName: z.string(), output: toolOutputSchema }))
      .min(1),
  }),
  /**
   * Messages a user sent while the turn ran (a conversation's `steer`), recorded at a model-request
   * boundary — after a response's outputs, never between a response and them — so the next request
   * reads them. None is recorded once the model has answered without calls: such a steer is left
   * for the conversation's next turn.
   */
  z.object({
    type: z.literal('user.steered'),
    messages: z.array(z.object({ messageId: z.string(), message: userMessageSchema })).min(1),
  }),
  /**
   * The context was compacted: later requests send `summary` (as a user message) in place of the
   * conversation's earlier turns and the turn's messages from its input up to `through` (an index
   * into the turn's messages: the assistant message being answered, which stays as it was, with all
   * after it). The full transcript stays as it was; only what requests send changes.
   */
  z.object({
    type: z.literal('context.compacted'),
    through: z.number().int().nonnegative(),
    summary: z.string(),
    usage: usageSchema,
  }),
  /**
   * The turn is a fork of another (see `forkPrefix`): these events of that turn, up to the fork
   * point, are this turn's record before its own (nothing of them runs again). Right after
   * `turn.opened`.
   */
  z.object({
    type: z.literal('turn.forked'),
    from: z.string(),
    /** The fork point (`ForkPoint`). */
    point: z.union([
      z.object({ afterResponse: z.number().int().nonnegative() }),
      z.object({ beforeCall: z.string() }),
    ]),
    get events(): z.ZodArray<typeof transcriptEventSchema> {
      return z.array(transcriptEventSchema);
    },
    /** The user's next word: it joins as a steer once the record's last batch is answered in full. */
    message: userMessageSchema.optional(),
  }),
  /**
   * The model's answer did not match the turn's output schema (`OutputConfig`): the turn asks
   * again, with this message saying what was wrong (it joins the transcript as the user's).
   */
  z.object({
    type: z.literal('output.rejected'),
    responseIndex: z.number().int().nonnegative(),
    issues: z.string(),
    message: userMessageSchema,
  }),
  z.object({
    type: z.literal('turn.finished'),
    status: turnStatusSchema,
    reason: z.string().optional(),
    /** A turn with an output schema that completed: its answer, parsed and checked. */
    output: z.unknown().optional(),
  }),
]);

export const executionRecordSchema = z.discriminatedUnion('type', [
  /** How this turn is carried out (dispatch mode, budget, detection) and when it began. */
  z.object({ type: z.literal('turn.opened'), at: z.number(), config: turnConfigSchema }),
  /** A tool call complete in a response that is still streaming: it may start before the response ends. */
  z.object({
    type: z.literal('model.call_accepted'),
    responseIndex: z.number().int().nonnegative(),
    call: preparedCallSchema,
  }),
  z.object({
    type: z.literal('tool.attempt_started'),
    toolCallId: z.string(),
    attempt: z.number().int().positive(),
    at: z.number(),
  }),
  z.object({
    type: z.literal('tool.attempt_finished'),
    toolCallId: z.string(),
    attempt: z.number().int().positive(),
    result: attemptResultSchema,
    at: z.number(),
    durationMs: z.number().nonnegative(),
  }),
  /**
   * The attempt started and its host can no longer say how it ended (the host crashed, or the
   * worker running it was lost): its outcome is unknown.
   */
  z.object({
    type: z.literal('tool.attempt_lost'),
    toolCallId: z.string(),
    attempt: z.number().int().positive(),
    /** Whether it will run again with the same idempotency key (the tool is retry-safe). */
    rerun: z.boolean(),
    /** What the host saw (e.g. a heartbeat timeout); for operators, not for the model. */
    detail: z.string().optional(),
  }),
  /**
   * The attempt's host could not even read it (it lacks the key its input is encrypted with): the
   * tool never ran, so the attempt counts for nothing and the call runs again at `retryAt` —
   * whatever its retry policy and retry safety — on a host that can. Absent `retryAt`: the turn was
   * halted meanwhile, and the call gets an interrupted output.
   */
  z.object({
    type: z.literal('tool.attempt_not_started'),
    toolCallId: z.string(),
    attempt: z.number().int().positive(),
    detail: z.string(),
    retryAt: z.number().optional(),
  }),
  /** A model request failed; `retryAt` when the engine tries it again, absent when it gave up. */
  z.object({
    type: z.literal('model.attempt_failed'),
    responseIndex: z.number().int().nonnegative(),
    attempt: z.number().int().positive(),
    error: z.string(),
    retryable: z.boolean(),
    at: z.number(),
    retryAt: z.number().optional(),
  }),
  /**
   * When the host had a response whole (recorded just before it, with the same index): with the
   * time its request was made (the last time recorded before `model.requested`), it places the
   * response on a timeline. Absent in journals written before it existed.
   */
  z.object({
    type: z.literal('model.response_ended'),
    responseIndex: z.number().int().nonnegative(),
    at: z.number(),
  }),
  /** A call began waiting for a person's decision (its approval timeout counts from here). */
  z.object({ type: z.literal('tool.approval_requested'), toolCallId: z.string(), at: z.number() }),
  z.object({
    type: z.literal('tool.approval_decided'),
    toolCallId: z.string(),
    /** The call runs (`approve`); false for `reject` and `respond` (readers of earlier journals know only this). */
    approved: z.boolean(),
    reason: z.string().optional(),
    /** Nobody decided within the approval timeout. */
    expired: z.boolean().optional(),
    /** Set for `respond` (its `output` is the call's output); absent: `approved` says all. */
    decision: z.literal('respond').optional(),
    /** `approve` with edited arguments: the call runs with these (the model's call stays as it made it). */
    input: z.unknown().optional(),
    /** `respond`: the call's output, as the approver wrote it. */
    output: z.string().optional(),
    /** Who decided (the caller's word, or the signer's), and through what. */
    by: z.string().optional(),
    via: decisionViaSchema.optional(),
    /** When the turn took the decision (absent in journals written before it was kept). */
    at: z.number().optional(),
    /** Approved by this grant, without asking (`by` and `via` are the grant's). */
    grantId: grantIdSchema.optional(),
  }),
  /** "Always allow" (see `ApprovalGrant`): the tool's covered calls run without asking from here on. */
  z.object({ type: z.literal('approval.granted'), grant: approvalGrantSchema }),
  /** A grant ended: the tool's calls ask again. */
  z.object({
    type: z.literal('approval.revoked'),
    grantId: grantIdSchema,
    by: z.string().optional(),
    via: decisionViaSchema.optional(),
    at: z.number(),
  }),
  z.object({ type: z.literal('turn.halted'), reason: haltReasonSchema, detail: z.string() }),
  /**
   * The context is to be compacted before the next request (see `context.compacted`): because the
   * last response's context reached the configured size (`budget`) or the provider refused a request
   * as too long (`overflow`). Its summary request is asked again on transient failures; given up,
   * a `budget` compaction lets the request go as it is, an `overflow` one fails the turn.
   */
  z.object({
    type: z.literal('context.compaction_requested'),
    through: z.number().int().nonnegative(),
    reason: z.enum(['budget', 'overflow']),
  }),
  /** A summary request failed; `retryAt` when it is asked again, absent when the turn gave up. */
  z.object({
    type: z.literal('context.compaction_failed'),
    attempt: z.number().int().positive(),
    error: z.string(),
    retryable: z.boolean(),
    at: z.number(),
    retryAt: z.number().optional(),
  }),
  /** The model answered without calls while background calls run: the turn waits for them from `at`. */
  z.object({ type: z.literal('background.waiting'), at: z.number() }),
  /**
   * The wait for background calls reached `maxBackgroundWaitMs`: running ones are stopped (their
   * hosts abort them, and what they report is recorded), waiting ones are interrupted.
   */
  z.object({ type: z.literal('background.stopped'), at: z.number(), detail: z.string() }),
]);

export const journalEntrySchema = z.union([transcriptEventSchema, executionRecordSchema]);

export type TranscriptEvent = z.infer<typeof transcriptEventSchema>;
export type ExecutionRecord = z.infer<typeof executionRecordSchema>;
export type JournalEntry = z.infer<typeof journalEntrySchema>;

const transcriptTypes: ReadonlySet<string> = new Set(
  transcriptEventSchema.options.map((option) => option.shape.type.value),
);

export function isTranscriptEvent(entry: JournalEntry): entry is TranscriptEvent {
  return transcriptTypes.has(entry.type);
}
