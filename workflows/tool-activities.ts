import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  TimeoutFailure,
} from '@temporalio/workflow';
import { attemptLostType, payloadKeyMissingType, type TurnActivities } from '../contract/activities';
import type { TurnWorkflowInput } from '../contract/turn-workflow';
import type { CallPolicy, HostEvent, ToolStart } from '../core';
import { failureMessage } from './failure-message';
import type { HostEventSink } from './host-event-queue';
import { toolSummary } from './tool-summary';

/**
 * Runs tool attempts as activities (activity id = tool call id) and queues how each ended. It
 * translates Temporal's outcomes into host events and decides nothing: the engine retries
 * failed attempts and decides what a lost one means. Under revision 1, Temporal itself retried
 * lost attempts of retry-safe tools; turns begun then keep that policy, so their histories replay.
 */
export class ToolActivities {
  private readonly pending = new Map<string, Promise<void>>();
  /** Background calls run in scopes of their own, so one can be stopped while the turn goes on. */
  private readonly scopes = new Map<string, CancellationScope>();

  constructor(
    private readonly input: TurnWorkflowInput,
    private readonly revision: number,
    private readonly queue: HostEventSink,
  ) {}

  get running(): number {
    return this.pending.size;
  }

  launch(start: ToolStart): void {
    const { call, attempt } = start;
    const { timing } = this.input;
    // The Web UI shows this instead of a bare `runTool` (user metadata: replay does not match on it).
    const summary = toolSummary({ call, attempt });
    const activities = call.policy.quick
      ? // A quick call runs in this worker, in the workflow task: no dispatch by the server, no
        // record before it runs (it is retry-safe, so after a crash it simply runs again).
        proxyLocalActivities<TurnActivities>({
          summary,
          startToCloseTimeout: start.timeoutMs + timing.heartbeatTimeoutMs,
          cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
          retry: { maximumAttempts: 1 },
        })
      : proxyActivities<TurnActivities>({
          activityId: call.toolCallId,
          summary,
          startToCloseTimeout: start.timeoutMs + timing.heartbeatTimeoutMs,
          heartbeatTimeout: timing.heartbeatTimeoutMs,
          cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
          retry: this.revision >= 2 ? { maximumAttempts: 1 } : revisionOneRetry(call.policy),
        });
    const key = `${call.toolCallId}#${attempt}`;
    const { toolCallId } = call;
    const run = () =>
      activities.runTool({
        turnId: this.input.turnId,
        // A quick call's input stays on this worker: the call without its policy (QuickRunToolInput).
        call: call.policy.quick
          ? { toolCallId: call.toolCallId, toolName: call.toolName, input: call.input }
          : call,
        attempt,
        approved: start.approved,
        maxOutputBytes: this.input.maxOutputBytes,
        idempotencyKey: start.idempotencyKey,
        timeoutMs: start.timeoutMs,
      });
    let scope: CancellationScope | undefined;
    if (call.policy.background) {
      scope = new CancellationScope();
      this.scopes.set(toolCallId, scope);
    }
    const ended = (event: HostEvent) => {
      this.pending.delete(key);
      if (scope && this.scopes.get(toolCallId) === scope) this.scopes.delete(toolCallId);
      this.queue.pushAttemptEnded(event);
    };
    // One `then` for both outcomes, no `finally`: the SDK captures a stack trace for every promise
    // a workflow makes (for its stack-trace query), so each one costs a quick call dearly.
    const done = (scope ? scope.run(run) : run()).then(
      ({ result, durationMs }) =>
        ended({ kind: 'attempt-finished', toolCallId, attempt, result, durationMs }),
      (error: unknown) => ended(this.failedAttempt(error, call.policy, toolCallId, attempt)),
    );
    this.pending.set(key, done);
  }

  /**
   * Cancels these background calls' activities (again is harmless): they see it through their
   * heartbeats, and what they then report is queued like any result.
   */
  stop(toolCallIds: readonly string[]): void {
    for (const id of toolCallIds) this.scopes.get(id)?.cancel();
  }

  /** Background calls still running: continue-as-new waits for none of them. */
  get runningInBackground(): number {
    return this.scopes.size;
  }

  /** Resolves once every attempt launched so far has ended and queued its event. */
  async settled(): Promise<void> {
    await Promise.all([...this.pending.values()]);
  }

  private failedAttempt(error: unknown, policy: CallPolicy, toolCallId: string, attempt: number): HostEvent {
    if (isCancellation(error)) return { kind: 'attempt-cancelled', toolCallId, attempt };
    const cause = error instanceof ActivityFailure ? error.cause : undefined;
    // The worker that took it could not read its input: the tool never ran (a worker with the key will).
    if (cause instanceof ApplicationFailure && cause.type === payloadKeyMissingType)
      return { kind: 'attempt-not-started', toolCallId, attempt, detail: failureMessage(error) };
    const lost =
      cause instanceof TimeoutFailure ||
      (cause instanceof ApplicationFailure && cause.type === attemptLostType);
    // Revision 1 let Temporal retry a lost retry-safe attempt: what reaches here has used them up.
    if (lost && (this.revision >= 2 || !policy.retrySafe))
      return { kind: 'attempt-lost', toolCallId, attempt, detail: failureMessage(error) };
    return { kind: 'attempt-failed', toolCallId, attempt, message: failureMessage(error) };
  }
}

function revisionOneRetry(policy: CallPolicy) {
  return {
    maximumAttempts: policy.retrySafe ? Math.max(3, policy.retry.maxAttempts) : 1,
    initialInterval: Math.max(1, policy.retry.initialDelayMs),
    backoffCoefficient: policy.retry.backoffCoefficient,
    maximumInterval: Math.max(1, policy.retry.maxDelayMs),
  };
}
