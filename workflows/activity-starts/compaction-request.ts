import {
  ActivityCancellationType,
  isCancellation,
  proxyActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { TurnActivities } from '../../contract/activities';
import type { TurnWorkflowInput } from '../../contract/turn-workflow';
import type { CompactionCall } from '../../core';
import type { HostEventSink } from '../turn/host-event-queue';
import { conversationOf, modelFailureOf } from './model-request';

/**
 * Runs one attempt of a compaction's summary request as an activity (`compactContext`) and queues
 * its summary or failure; the engine decides whether to try again, as for a model request. Its
 * messages are read by the worker from the workflow (the model request's query answers for it);
 * only the point, the instruction and the previous summary travel. The summary enters history with
 * its result, and again in the input of each request after it (`CallModelInput.compaction`).
 */
export class CompactionActivity {
  private pending?: Promise<void>;

  constructor(
    private readonly input: TurnWorkflowInput,
    private readonly revision: number,
    private readonly queue: HostEventSink,
  ) {}

  start(op: CompactionCall, responseIndex: number): Promise<void> {
    const { timing } = this.input;
    const activities = proxyActivities<TurnActivities>({
      summary: `compacting the context before response ${responseIndex} (attempt ${op.attempt})`,
      startToCloseTimeout: op.timeoutMs,
      heartbeatTimeout: timing.heartbeatTimeoutMs,
      cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
      retry: { maximumAttempts: 1 },
    });
    const pending = activities
      .compactContext({
        turnId: this.input.turnId,
        workflowId: workflowInfo().workflowId,
        responseIndex,
        model: this.input.model,
        through: op.through,
        inputLength: op.inputLength,
        ...(op.previous ? { previous: op.previous } : {}),
        instruction: op.instruction,
        idempotencyKey: op.idempotencyKey,
        ...conversationOf(this.input),
      })
      .then(
        ({ summary, usage }) => {
          this.queue.push({ kind: 'compacted', attempt: op.attempt, summary, usage });
        },
        (error: unknown) => {
          if (isCancellation(error)) return;
          const failure = modelFailureOf(error, this.revision);
          this.queue.push({ kind: 'compaction-failed', attempt: op.attempt, error: failure });
        },
      );
    this.pending = pending;
    return pending;
  }

  /** Resolves once the latest summary request has ended. */
  async settled(): Promise<void> {
    await this.pending;
  }
}
