import { z } from 'zod';
import {
  type AttemptCall,
  type AttemptResult,
  type ChainedAttempt,
  type ConversationHookEvent,
  type ConversationHookOutcome,
  conversationOriginSchema,
  type ModelResponse,
  messageSchema,
  preparedCallSchema,
  type Usage,
} from '../core';

/** A model request the provider refused (400, unknown model): not worth another attempt. */
export const modelRejectedType = 'ModelRequestRejected';
/** A transient failure (reset, 429, 5xx, a broken stream); `details[0].retryAfterMs` when the provider said. */
export const modelFailedType = 'ModelRequestFailed';
/**
 * A model request the conversation no longer fits (context overflow): final like a rejection, but a
 * kind of its own, since a shorter conversation would go through.
 */
export const modelContextOverflowType = 'ModelContextOverflow';

/**
 * A tool attempt its worker stopped before the tool finished, for a reason other than the turn's
 * cancellation (the worker shutting down, the activity timed out, paused or reset): its outcome
 * is unknown, and the engine decides whether it runs again.
 */
export const attemptLostType = 'ToolAttemptLost';
/**
 * The failure type of an activity whose input its worker could not decrypt (it lacks the key): the
 * tool never ran. The codec's `PayloadKeyMissingError` has this name, and the SDK makes it the type.
 */
export const payloadKeyMissingType = 'PayloadKeyMissingError';
/**
 * An activity whose input does not read as the contract says: a bug or a version skew between
 * workflow and worker, which another attempt would not cure.
 */
export const activityInputInvalidType = 'ActivityInputInvalid';

/**
 * A model request's context sent with the request itself, when what it adds to the previous
 * request's is small: the activity's worker, holding that earlier context, then asks its workflow
 * nothing (a query is a round trip through the server). It is the answer the workflow's
 * `modelRequest` query would give an asker holding the previous request's context, plus the
 * digests of that held prefix, which the worker compares with what it holds.
 */
export const inlineRequestContextSchema = z.object({
  epoch: z.string().min(1),
  messagesFrom: z.number().int().nonnegative(),
  /** Chained digest of the first `messagesFrom` messages ('' for none): what a reader must hold. */
  heldMessagesDigest: z.string(),
  messages: z.array(messageSchema),
  messagesDigest: z.string(),
  callIdsFrom: z.number().int().nonnegative(),
  heldCallIdsDigest: z.string(),
  callIds: z.array(z.string()),
  callIdsDigest: z.string(),
  acceptedCallIds: z.array(z.string()),
});
export type InlineRequestContext = z.infer<typeof inlineRequestContextSchema>;

/**
 * The transcript a model request needs, named but not sent (its context was too large to travel
 * as input, and went to the workflow's own worker by sink): a worker holding exactly this reads
 * nothing; any other reads by query.
 */
export const offeredRequestContextSchema = z.object({
  epoch: z.string().min(1),
  messageCount: z.number().int().nonnegative(),
  messagesDigest: z.string(),
  callIdCount: z.number().int().nonnegative(),
  callIdsDigest: z.string(),
  acceptedCallIds: z.array(z.string()),
});
export type OfferedRequestContext = z.infer<typeof offeredRequestContextSchema>;

const appliedCompactionSchema = z.object({
  summary: z.string(),
  through: z.number().int().nonnegative(),
  inputLength: z.number().int().nonnegative(),
});

/** Which conversation a turn belongs to, and which turn of it: its requests send turns 1 to N − 1 first. */
const conversationTurnRefSchema = z.object({
  conversationId: z.string().min(1),
  turnNumber: z.number().int().positive(),
  /** Which conversation of this id (a deleted one's id can be used again); absent in older ones. */
  incarnation: z.string().min(1).optional(),
  /** A branch's: the turns of the conversations it came from, read after its own. */
  origin: conversationOriginSchema.optional(),
});

export const callModelInputSchema = z.object({
  turnId: z.string().min(1),
  /** The workflow to read the transcript from (by query), so it never travels as activity input. */
  workflowId: z.string().min(1),
  responseIndex: z.number().int().nonnegative(),
  model: z.string().min(1),
  /** The engine's key for this request; absent from workflows older than it (then `turnId/model/n`). */
  idempotencyKey: z.string().optional(),
  /** Calls with larger arguments are not run (see `limitsConfigSchema`); absent from older workflows. */
  maxArgumentBytes: z.number().int().positive().optional(),
  /**
   * Set when the turn continues statefully (`continuation: 'since-receipt'`), from its first
   * request on: a model that keeps no responses refuses the turn before anything runs. Absent from
   * older workflows and from turns that send the whole transcript.
   */
  continuationMode: z.literal('since-receipt').optional(),
  /** A stateful continuation: the receipt to continue from and where the messages after it start. */
  continuation: z
    .object({ previousResponseId: z.string().min(1), fromMessage: z.number().int().nonnegative() })
    .optional(),
  /** The context, when small enough to travel (absent: read it by query; older workflows send none). */
  context: inlineRequestContextSchema.optional(),
  /**
   * The context too large to travel, named (`OfferedRequestContext`): held already by the worker
   * that ran the workflow's task, which then asks nothing. Absent in older workflows.
   */
  offered: offeredRequestContextSchema.optional(),
  /** A turn of a conversation: its earlier turns' messages go first (see `conversationTurn`). */
  conversation: conversationTurnRefSchema.optional(),
  /** The turn's latest compaction: the request sends its summary in place of what it covers (`requestMessages`). */
  compaction: appliedCompactionSchema.optional(),
  /** The turn asks for a structured answer (see `ModelRequest.output`); absent in older workflows. */
  output: z.object({ schema: z.record(z.string(), z.unknown()), name: z.string().optional() }).optional(),
});
export type CallModelInput = z.infer<typeof callModelInputSchema>;

/**
 * A compaction's summary request (see core's `CompactionCall`): the messages are read from the
 * workflow by the model request's query, as a request's are; the rest travels here.
 */
export const compactContextInputSchema = z.object({
  turnId: z.string().min(1),
  workflowId: z.string().min(1),
  /** The response the compaction comes before (the query answers for it). */
  responseIndex: z.number().int().nonnegative(),
  model: z.string().min(1),
  through: z.number().int().nonnegative(),
  inputLength: z.number().int().nonnegative(),
  previous: appliedCompactionSchema.optional(),
  instruction: z.string().min(1),
  idempotencyKey: z.string().min(1),
  conversation: conversationTurnRefSchema.optional(),
  /**
   * The workflow follows a `ModelRouted` answer (a rate-limited model's summary requests go to its
   * queue, as its requests do). Absent from workflows that began before they could.
   */
  routable: z.boolean().optional(),
});
export type CompactContextInput = z.infer<typeof compactContextInputSchema>;

export interface CompactContextOutput {
  summary: string;
  usage: Usage;
  finishReason: string;
}

export const runToolInputSchema = z.object({
  turnId: z.string().min(1),
  call: preparedCallSchema,
  attempt: z.number().int().positive(),
  approved: z.boolean(),
  maxOutputBytes: z.number().int().positive(),
  /** The engine's key for this call; absent from workflows older than it. */
  idempotencyKey: z.string().optional(),
  /** The engine's limit for this attempt; absent from workflows older than it. */
  timeoutMs: z.number().int().positive().optional(),
  /** The conversation's session key (`ToolContext.session`); absent for a standalone turn, and from older workflows. */
  session: z
    .object({
      key: z.string().min(1),
      opened: z.array(z.string()).optional(),
      /** The queue of the worker whose sessions the turn takes to be current (see `ToolSession.here`). */
      holder: z.string().optional(),
    })
    .optional(),
});
export type RunToolInput = z.infer<typeof runToolInputSchema>;

/**
 * A quick call's input (a local activity). It never leaves the worker whose workflow made it, so it
 * is not parsed again and carries only what the attempt needs: the call without its policy (the
 * attempt's timeout comes with it). That is under half an ordinary call's bytes, which each quick
 * call would encode and decode again on both of the worker's threads.
 */
export type QuickRunToolInput = Omit<RunToolInput, 'call' | 'timeoutMs'> & {
  call: AttemptCall;
  timeoutMs: number;
};

export interface RunToolOutput {
  result: AttemptResult;
  durationMs: number;
  /**
   * For a call to a session-keeping server (`CallPolicy.session`): the task queue of the worker that
   * ran it, which holds the session now (`sessionTaskQueue`); its conversation's next calls go there.
   */
  sessionQueue?: string;
}

/**
 * Quick calls run back to back in one local activity (core's `runQuickChain`): the first as the
 * workflow's engine started it, the rest as the engine restored from `snapshot` starts them. Like
 * a quick call's input it never leaves the worker whose workflow made it, so it is not parsed
 * again; the snapshot is (restoring a turn validates it).
 */
export interface RunQuickChainInput {
  turnId: string;
  /** `quickChainSnapshot` of the workflow's engine just after it started `first`. */
  snapshot: unknown;
  /** The engine's start of the chain's first call (its call is in the snapshot). */
  first: {
    toolCallId: string;
    attempt: number;
    approved: boolean;
    idempotencyKey: string;
    timeoutMs: number;
  };
  /** The workflow's time when it started `first`: the chain's engine decides at it. */
  now: number;
  maxOutputBytes: number;
  /** As `RunToolInput.session`, for every call of the chain. */
  session?: { key: string };
}

export interface RunQuickChainOutput {
  /** Every attempt the chain ran, in order; the first is `first`'s. */
  attempts: ChainedAttempt[];
}

/** The activities a turn workflow calls; the worker makes them with `createActivities`. */
export interface TurnActivities {
  callModel(input: CallModelInput): Promise<CallModelOutput>;
  compactContext(input: CompactContextInput): Promise<CompactContextOutput | ModelRouted>;
  /** A conversation's hooks for one event (a local activity of the conversation's workflow). */
  runConversationHooks(event: ConversationHookEvent): Promise<ConversationHookOutcome>;
  runTool(input: RunToolInput | QuickRunToolInput): Promise<RunToolOutput>;
  runQuickChain(input: RunQuickChainInput): Promise<RunQuickChainOutput>;
  /** Closes this worker's sessions for a conversation's key (it closed): sent to the holder's own queue. */
  closeToolSessions(input: { key: string }): Promise<void>;
}

/**
 * The model activity's result. The first `streamedCallCount` calls were handed to the workflow
 * by update while the response streamed and are left out here, so each enters history once; the
 * message holds the prose only (the engine writes the tool-call parts from the calls), so each
 * call's arguments travel once.
 */
export type CallModelOutput = ModelResponse | ModelRouted;

/**
 * The model activity's answer when this model's requests are rate-limited across the fleet (see
 * `modelRateLimits`) and the request reached the turn's own task queue: it sent nothing to the
 * provider, and the workflow asks again on the model's queue, as it will for the rest of the run.
 */
export interface ModelRouted {
  routedTo: string;
}

export function isModelRouted<T extends object>(output: T | ModelRouted): output is ModelRouted {
  return 'routedTo' in output && typeof output.routedTo === 'string';
}

/**
 * The task queue only this worker polls, for the calls of conversations whose sessions it holds
 * (see `CallPolicy.session`): one per `createTurnWorker`, named for its task queue and a random id.
 */
export function sessionTaskQueue({ taskQueue, workerId }: { taskQueue: string; workerId: string }): string {
  return `${taskQueue}.sessions.${workerId}`;
}

/**
 * The task queue of a rate-limited model's requests: the server dispatches from it at most the
 * limit's rate, whichever worker polls it.
 */
export function modelTaskQueue({ taskQueue, model }: { taskQueue: string; model: string }): string {
  return `${taskQueue}.model.${model}`;
}
