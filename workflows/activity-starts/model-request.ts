import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  isCancellation,
  proxyActivities,
  TimeoutFailure,
  workflowInfo,
} from '@temporalio/workflow';
import {
  type CallModelInput,
  isModelRouted,
  modelContextOverflowType,
  modelRejectedType,
  type TurnActivities,
} from '../../contract/activities';
import type { TurnWorkflowInput } from '../../contract/turn-workflow';
import type { ConversationOrigin, ModelCall, ModelFailure, TurnState } from '../../core';
import type { HostEventSink } from '../turn/host-event-queue';
import { modelSummary } from '../web-ui/model-summary';
import { failureMessage } from './failure-message';
import { type HeldCounts, inlineRequestContext, type TranscriptDigests } from './model-request-answer';
import { offerRequestContext } from './transcript-offers';

/**
 * The most JSON a request's context may add to its activity's input: a wave of small outputs
 * travels with the request (no query round trip); a larger one goes to this workflow's worker by
 * sink, and a request on another worker reads it by query; so history grows by at most this much
 * per request.
 */
export const inlineContextMaxChars = 32 * 1024;

/**
 * Where this run sends the model's requests once a worker said the model is rate-limited (a result
 * in history, so replay takes the same road): its own queue, for its requests and summary requests
 * alike. Learnt again after continue-as-new: one request.
 */
export interface ModelRoute {
  taskQueue?: string;
}

/**
 * Runs one model request as an activity and queues its response or failure. Since revision 2
 * each attempt is an activity of its own (Temporal retries none of them) and the engine decides
 * whether to try again and when, the same way as in process; under revision 1 Temporal retried
 * the activity and a failure that reaches the workflow is final.
 */
export class ModelActivity {
  private pending?: Promise<void>;
  /**
   * What the worker of this run's previous request read (and holds): this request's context is
   * sent as what came after it. Nothing before this run's first request.
   */
  private held: HeldCounts = { messageCount: 0, callIdCount: 0 };

  constructor(
    private readonly input: TurnWorkflowInput,
    private readonly revision: number,
    private readonly queue: HostEventSink,
    private readonly digests: TranscriptDigests,
    /** Where the model's requests go, shared with its summary requests (`ModelRoute`). */
    private readonly route: ModelRoute,
  ) {}

  /** Starts the request; the returned promise resolves once its outcome is queued. */
  start(op: ModelCall, view: Readonly<TurnState>): Promise<void> {
    const { responseIndex, attempt } = op;
    const { context, offered, reads } = inlineRequestContext({
      view,
      epoch: workflowInfo().firstExecutionRunId,
      held: this.held,
      digests: this.digests,
      maxChars: inlineContextMaxChars,
    });
    this.held = reads;
    const request: CallModelInput = {
      turnId: this.input.turnId,
      workflowId: workflowInfo().workflowId,
      responseIndex,
      model: this.input.model,
      idempotencyKey: op.idempotencyKey,
      maxArgumentBytes: view.config.limits.maxArgumentBytes,
      // An input field, not a command: replay matches activities by type and id, not by input.
      ...(view.config.continuation === 'since-receipt' ? { continuationMode: 'since-receipt' as const } : {}),
      ...(op.continuation ? { continuation: op.continuation } : {}),
      ...(context ? { context } : {}),
      ...(offered ? { offered: offerRequestContext(offered) } : {}),
      ...conversationOf(this.input),
      ...(op.compaction ? { compaction: op.compaction } : {}),
      ...(op.output ? { output: op.output } : {}),
    };
    const ask = async () => {
      const answer = await this.activities(op).callModel(request);
      if (!isModelRouted(answer)) return answer;
      // Nothing went to the provider: the same request again, on the model's own queue.
      this.route.taskQueue = answer.routedTo;
      const routed = await this.activities(op).callModel(request);
      if (isModelRouted(routed))
        throw ApplicationFailure.nonRetryable(
          `the worker on ${answer.routedTo} sent ${this.input.model}'s request on to ${routed.routedTo}: its workers disagree on the model's queue`,
        );
      return routed;
    };
    const pending = ask().then(
      (response) => {
        this.queue.push({ kind: 'model-responded', response });
      },
      (error: unknown) => {
        if (isCancellation(error)) return;
        this.queue.push({
          kind: 'model-failed',
          responseIndex,
          attempt,
          error: modelFailureOf(error, this.revision),
        });
      },
    );
    this.pending = pending;
    return pending;
  }

  private activities(op: ModelCall) {
    const { timing } = this.input;
    return proxyActivities<TurnActivities>({
      ...(this.route.taskQueue !== undefined ? { taskQueue: this.route.taskQueue } : {}),
      // The Web UI shows this instead of a bare `callModel` (user metadata: replay does not match on it).
      summary: modelSummary({
        responseIndex: op.responseIndex,
        model: this.input.model,
        attempt: op.attempt,
      }),
      startToCloseTimeout: op.timeoutMs,
      heartbeatTimeout: timing.heartbeatTimeoutMs,
      cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
      retry:
        this.revision >= 2
          ? { maximumAttempts: 1 }
          : {
              maximumAttempts: timing.modelMaxAttempts,
              initialInterval: 500,
              nonRetryableErrorTypes: [modelRejectedType],
            },
    });
  }

  /** Resolves once the latest request has ended (after a cancel, its activity reports late). */
  async settled(): Promise<void> {
    await this.pending;
  }
}

/** How a model activity's failure (a request's or a summary request's) reaches the engine. */
export function modelFailureOf(error: unknown, revision: number): ModelFailure {
  const message = failureMessage(error);
  const cause = error instanceof ActivityFailure ? error.cause : undefined;
  // Its own kind on every revision: only the failure's words reach what the engine records.
  if (cause instanceof ApplicationFailure && cause.type === modelContextOverflowType)
    return { message, retryable: false, kind: 'context-overflow' };
  if (revision < 2) return { message, retryable: false };
  // Thrown here, in the workflow: a misconfigured fleet, which another attempt would not mend.
  if (error instanceof ApplicationFailure && error.nonRetryable) return { message, retryable: false };
  // Only what the activity marked as a rejection is final; anything else (a timeout, a lost or
  // shutting-down worker, a transient provider failure) is worth another attempt.
  if (cause instanceof ApplicationFailure && (cause.type === modelRejectedType || cause.nonRetryable))
    return { message, retryable: false };
  // Timed out: its worker died or stopped heartbeating — the host was lost, not the provider.
  if (cause instanceof TimeoutFailure) return { message, retryable: true, lost: true };
  const retryAfterMs = cause instanceof ApplicationFailure ? retryAfterOf(cause.details) : undefined;
  return { message, retryable: true, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
}

function retryAfterOf(details: readonly unknown[] | undefined | null): number | undefined {
  const first = details?.[0];
  if (typeof first !== 'object' || first === null || !('retryAfterMs' in first)) return undefined;
  const value = first.retryAfterMs;
  return typeof value === 'number' && value >= 0 ? value : undefined;
}

/** A turn of a conversation past its first: its requests send the earlier turns first. */
export function conversationOf(input: TurnWorkflowInput): {
  conversation?: {
    conversationId: string;
    turnNumber: number;
    incarnation?: string;
    origin?: ConversationOrigin;
  };
} {
  const { conversationId, conversationTurn = 0, conversationIncarnation, conversationOrigin } = input;
  // A branch's first turn has earlier turns too: those of the conversations it came from.
  const branched = conversationOrigin?.some((o) => o.turns > 0) ?? false;
  return conversationId && conversationTurn >= 1 && (conversationTurn > 1 || branched)
    ? {
        conversation: {
          conversationId,
          turnNumber: conversationTurn,
          ...(conversationIncarnation ? { incarnation: conversationIncarnation } : {}),
          ...(branched ? { origin: conversationOrigin } : {}),
        },
      }
    : {};
}
