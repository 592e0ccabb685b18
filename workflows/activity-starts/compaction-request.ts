import {
  ActivityCancellationType,
  ApplicationFailure,
  isCancellation,
  proxyActivities,
  workflowInfo,
} from '@temporalio/workflow';
import {
  type CompactContextInput,
  type CompactContextOutput,
  isModelRouted,
  type TurnActivities,
} from '../../contract/activities';
import type { TurnWorkflowInput } from '../../contract/turn-workflow';
import type { CompactionCall } from '../../core';
import type { HostEventSink } from '../turn/host-event-queue';
import { conversationOf, type ModelRoute, modelFailureOf } from './model-request';

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
    /** Where the model's requests go (`ModelRoute`), learnt by either kind of request. */
    private readonly route: ModelRoute,
    /** Its requests follow the route (runs begun before send them to the turn's queue). */
    private readonly routable: boolean,
  ) {}

  start(op: CompactionCall, responseIndex: number): Promise<void> {
    const { routable } = this;
    const request: CompactContextInput = {
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
      ...(routable ? { routable } : {}),
    };
    const ask = async (): Promise<CompactContextOutput> => {
      const answer = await this.activities(op, responseIndex, routable).compactContext(request);
      if (!isModelRouted(answer)) return answer;
      // Nothing went to the provider: the same request again, on the model's own queue.
      this.route.taskQueue = answer.routedTo;
      const routed = await this.activities(op, responseIndex, routable).compactContext(request);
      if (isModelRouted(routed))
        throw ApplicationFailure.nonRetryable(
          `the worker on ${answer.routedTo} sent ${this.input.model}'s summary request on to ${routed.routedTo}: its workers disagree on the model's queue`,
        );
      return routed;
    };
    const pending = ask().then(
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

  private activities(op: CompactionCall, responseIndex: number, routable: boolean) {
    const { timing } = this.input;
    const taskQueue = routable ? this.route.taskQueue : undefined;
    return proxyActivities<TurnActivities>({
      ...(taskQueue !== undefined ? { taskQueue } : {}),
      summary: `compacting the context before response ${responseIndex} (attempt ${op.attempt})`,
      startToCloseTimeout: op.timeoutMs,
      heartbeatTimeout: timing.heartbeatTimeoutMs,
      cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
      retry: { maximumAttempts: 1 },
    });
  }

  /** Resolves once the latest summary request has ended. */
  async settled(): Promise<void> {
    await this.pending;
  }
}
