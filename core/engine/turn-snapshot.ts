import { z } from 'zod';
import { LoopDetector } from '../detection/loop-detector';
import { approvalGrantSchema } from '../schema/approval-grant';
import { attemptResultSchema } from '../schema/attempt-result';
import { decisionViaSchema } from '../schema/decision-via';
import { formatIssues } from '../schema/format-issues';
import { messageSchema } from '../schema/messages';
import { preparedCallSchema } from '../schema/prepared-call';
import { type ToolOutput, toolOutputSchema } from '../schema/tool-output';
import { turnConfigSchema } from '../schema/turn-config';
import { haltReasonSchema, turnStatusSchema } from '../schema/turn-status';
import { usageSchema } from '../schema/usage';
import { batchOutputOf } from './background-calls';
import type { BatchState, TurnState } from './turn-state';

/**
 * A turn's state as plain data, to carry it into a new run (continue-as-new). It is a cache of the
 * fold of the journal, never the authority; it carries a schema version, and old versions must
 * keep decoding (see core/engine/fixtures).
 *
 * Versions: 1 carried the loop detector's whole-turn counts; 2 carries its window (see
 * `LoopDetector.restore` for how a version-1 detector converts).
 */
export const turnSnapshotVersion = 2;

const halt = z.object({ reason: haltReasonSchema, detail: z.string() });
const callSnapshotSchema = z.object({
  call: preparedCallSchema,
  position: z.number().int(),
  wave: z.number().int(),
  phase: z.enum(['pending', 'awaiting-approval', 'running', 'retry-wait', 'done']),
  attempts: z.array(
    z.object({
      attempt: z.number().int(),
      startedAt: z.number(),
      finishedAt: z.number().optional(),
      durationMs: z.number().optional(),
      result: attemptResultSchema.optional(),
    }),
  ),
  nextAttempt: z.number().int(),
  retryAt: z.number().optional(),
  approval: z
    .object({
      approved: z.boolean(),
      reason: z.string().optional(),
      input: z.unknown().optional(),
      by: z.string().optional(),
      via: decisionViaSchema.optional(),
      grantId: z.string().optional(),
    })
    .optional(),
  approvalReason: z.string().optional(),
  approvalSchema: z.record(z.string(), z.unknown()).optional(),
  approvalRequestedAt: z.number().optional(),
  final: toolOutputSchema.optional(),
  launched: z.boolean(),
  recorded: z.boolean(),
  lostAttempts: z.number().int().optional(),
  notStartedAttempts: z.number().int().optional(),
  backgrounded: z.boolean().optional(),
  stopRequested: z.string().optional(),
});

const snapshotFields = {
  turnId: z.string(),
  /** Absent in snapshots carried before revisions existed: those turns run under revision 1. */
  revision: z.number().int().positive().default(1),
  config: turnConfigSchema,
  messages: z.array(messageSchema),
  inputLength: z.number().int(),
  responseIndex: z.number().int(),
  modelInFlight: z.boolean(),
  modelFailures: z.number().int().nonnegative().default(0),
  modelRetryAt: z.number().optional(),
  modelDone: z.boolean(),
  batch: z
    .object({
      responseIndex: z.number().int(),
      calls: z.array(callSnapshotSchema),
      recordedCount: z.number().int(),
      streamOpen: z.boolean().default(false),
    })
    .optional(),
  spent: z.object({
    modelResponses: z.number().int(),
    toolCalls: z.number().int(),
    usage: usageSchema,
    startedAt: z.number(),
  }),
  halt: halt.optional(),
  pendingHalt: halt.optional(),
  finished: z
    .object({ status: turnStatusSchema, reason: z.string().optional(), output: z.unknown().optional() })
    .optional(),
  /** Only in turns with an output schema whose answer was asked again. */
  outputRejections: z.number().int().nonnegative().optional(),
  /** Not carried (they are the tool results in `messages`); accepted and ignored when present. */
  outputs: z
    .array(z.object({ toolCallId: z.string(), toolName: z.string(), output: toolOutputSchema }))
    .optional(),
  callIds: z.array(z.string()),
  /** Background calls not delivered yet, in launch order; one also in `batch` is the same call. */
  background: z.array(callSnapshotSchema).optional(),
  /** The outputs of delivered background calls (their batch results are placeholders). */
  delivered: z.array(z.object({ toolCallId: z.string(), output: toolOutputSchema })).optional(),
  backgroundWaitSince: z.number().optional(),
  receipt: z
    .object({ responseIndex: z.number().int(), responseId: z.string(), messageCount: z.number().int() })
    .optional(),
  contextTokens: z.number().int().nonnegative().optional(),
  /** Only in turns that compacted (see `context.compacted`). */
  compaction: z.object({ summary: z.string(), through: z.number().int().nonnegative() }).optional(),
  compacting: z
    .object({
      through: z.number().int().nonnegative(),
      reason: z.enum(['budget', 'overflow']),
      failures: z.number().int().nonnegative(),
      retryAt: z.number().optional(),
    })
    .optional(),
  compactionDeclinedAt: z.number().int().nonnegative().optional(),
  /** Only in turns with grants. */
  grants: z.array(approvalGrantSchema).optional(),
  grantsRevoked: z.array(z.string()).optional(),
};

const detectorMemorySchema = z.object({
  recent: z.array(z.string()),
  latest: z.array(
    z.object({ toolName: z.string(), fingerprint: z.string(), sketch: z.string(), streak: z.number().int() }),
  ),
});

export const turnSnapshotSchema = z.object({
  schemaVersion: z.literal(turnSnapshotVersion),
  ...snapshotFields,
  detector: detectorMemorySchema,
});

/** Version 1: the detector's memory was whole-turn counts (dropped on restore) and its latest attempts. */
const turnSnapshotV1Schema = z.object({
  schemaVersion: z.literal(1),
  ...snapshotFields,
  detector: z.object({
    counts: z.array(z.tuple([z.string(), z.number()])).optional(),
    history: z.array(z.string()),
  }),
});

/** Every version a snapshot may have been written in: the current one and those before it. */
export const storedTurnSnapshotSchema = z.discriminatedUnion('schemaVersion', [
  turnSnapshotSchema,
  turnSnapshotV1Schema,
]);
export type TurnSnapshot = z.infer<typeof turnSnapshotSchema>;
/** A snapshot as any version wrote it: what a new run may be handed. */
export type StoredTurnSnapshot = z.infer<typeof storedTurnSnapshotSchema>;

export function snapshotOf(state: TurnState): TurnSnapshot {
  const { batch, callIds, detector, outputs, messages, background, delivered, ...rest } = state;
  return {
    ...structuredCloneJson(rest),
    // Messages are values, only ever appended: shared, not copied (a long turn's are megabytes).
    messages: [...messages],
    schemaVersion: turnSnapshotVersion,
    // A batch whose outputs are all recorded is history (its outputs are in the messages): not carried.
    ...(batch && (batch.streamOpen || batch.recordedCount < batch.calls.length)
      ? {
          batch: {
            responseIndex: batch.responseIndex,
            calls: structuredCloneJson(batch.calls),
            recordedCount: batch.recordedCount,
            streamOpen: batch.streamOpen,
          },
        }
      : {}),
    callIds: [...callIds],
    // Only in turns that ran background calls: every other snapshot stays as it was.
    ...(background.length > 0 ? { background: structuredCloneJson(background) } : {}),
    ...(delivered.size > 0
      ? {
          delivered: outputs
            .filter((o) => delivered.has(o.toolCallId))
            .map((o) => ({ toolCallId: o.toolCallId, output: o.output })),
        }
      : {}),
    detector: detector.save(),
  } as TurnSnapshot;
}

export function stateFromSnapshot(raw: unknown): TurnState {
  const parsed = storedTurnSnapshotSchema.safeParse(raw);
  if (!parsed.success)
    throw new Error(`cannot restore turn state: ${formatIssues(parsed.error, { root: 'snapshot' })}`);
  const {
    schemaVersion: _version,
    batch,
    callIds,
    detector,
    outputs: _carried,
    background,
    delivered,
    ...rest
  } = parsed.data;
  const restoredBatch: BatchState | undefined = batch
    ? { ...batch, byId: new Map(batch.calls.map((c) => [c.call.toolCallId, c])) }
    : undefined;
  const deliveredById = new Map((delivered ?? []).map((d) => [d.toolCallId, d.output]));
  // Outputs are the tool results already in the transcript (a delivered background call's output
  // in its placeholder's place), then those recorded in the open batch.
  const outputs = [
    ...rest.messages.flatMap((m) =>
      m.role === 'tool'
        ? m.content.map((p) => ({
            toolCallId: p.toolCallId,
            toolName: p.toolName,
            output: deliveredById.get(p.toolCallId) ?? p.output,
          }))
        : [],
    ),
    ...(batch && batch.recordedCount < batch.calls.length
      ? batch.calls
          .filter((c) => c.recorded && (c.final || c.backgrounded))
          .map((c) => ({
            toolCallId: c.call.toolCallId,
            toolName: c.call.toolName,
            output: deliveredById.get(c.call.toolCallId) ?? (batchOutputOf(c) as ToolOutput),
          }))
      : []),
  ];
  return {
    ...rest,
    outputs,
    ...(restoredBatch ? { batch: restoredBatch } : {}),
    callIds: new Set(callIds),
    background: (background ?? []).map((c) => restoredBatch?.byId.get(c.call.toolCallId) ?? c),
    delivered: new Set(deliveredById.keys()),
    detector: LoopDetector.restore(rest.config.detection, detector),
  } as TurnState;
}

/** A deep copy through JSON: the snapshot must be plain data (it crosses a payload boundary). */
function structuredCloneJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
