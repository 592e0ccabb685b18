import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  log,
  proxyActivities,
  proxyLocalActivities,
  TimeoutFailure,
} from '@temporalio/workflow';
import {
  attemptLostType,
  payloadKeyMissingType,
  type RunToolOutput,
  type TurnActivities,
} from '../../contract/activities';
import type { ToolSessions, TurnWorkflowInput } from '../../contract/turn-workflow';
import {
  type CallPolicy,
  conversationSessionKey,
  type HostEvent,
  maxQuickTimeoutMs,
  mayBeginQuickChain,
  quickChainSnapshot,
  quickChainWindowMs,
  type ToolSession,
  type ToolStart,
  type TurnEngine,
} from '../../core';
import type { HostEventSink } from '../turn/host-event-queue';
import { toolSummary } from '../web-ui/tool-summary';
import { failureMessage } from './failure-message';
import { SessionHolder } from './session-holder';

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
  /** Outcomes of attempts a quick chain ran, by `callId#attempt`, until the engine starts them. */
  private readonly chained = new Map<string, RunToolOutput>();
  private readonly chains = new Set<Promise<void>>();
  /** A conversation's turn: its calls' session key (`ToolContext.session`), in each attempt's input. */
  private readonly session: ToolSession | undefined;
  /**
   * Which worker holds the sessions of session-keeping servers (calls with `policy.session`): they go
   * to its queue while it takes them. Learnt from the calls' outputs, kept across the
   * conversation's turns and runs, dropped when that worker does not take a call in time.
   */
  private readonly holder: SessionHolder;

  constructor(
    private readonly input: TurnWorkflowInput,
    private readonly revision: number,
    private readonly queue: HostEventSink,
    /** The turn's engine, where runs chain quick calls (see core's `runQuickChain`). */
    private readonly chainFrom?: TurnEngine,
  ) {
    // Only a turn its conversation started (`conversationTurn`): a standalone turn's conversation
    // id is a label. Activity inputs are not compared on replay, so older histories replay as they are.
    const { conversationId, conversationTurn, conversationIncarnation } = input;
    this.session =
      conversationId !== undefined && conversationTurn !== undefined
        ? { key: conversationSessionKey({ conversationId, incarnation: conversationIncarnation }) }
        : undefined;
    this.holder = new SessionHolder(input.sessions);
  }

  /** Where the turn's sessions are held, for its next run or its conversation's next turn. */
  get sessions(): ToolSessions | undefined {
    return this.holder.carried;
  }

  /**
   * Attempts a chain ran wait for the engine to start them: until it has, the turn must not
   * continue as new (the new run would start them again) or take a cancel (it would call them
   * never started).
   */
  get absorbing(): boolean {
    return this.chained.size > 0;
  }

  /** Whether this start's outcome is one a chain already ran. */
  ranInChain(start: ToolStart): boolean {
    return this.chained.has(attemptKey(start.call.toolCallId, start.attempt));
  }

  /**
   * The engine went another way than the chain's copy of it (it must not: the copies decide alike):
   * the attempts it ran past that point are dropped, as a quick call's after a crash is.
   */
  dropChained(): void {
    if (this.chained.size === 0) return;
    log.warn('quick chain: the engine did not start calls the chain ran', {
      calls: [...this.chained.keys()],
    });
    this.chained.clear();
  }

  /** Quick chains running now. */
  get chainsRunning(): number {
    return this.chains.size;
  }

  /** Resolves once every quick chain launched so far has ended and its first outcome is queued. */
  async chainsSettled(): Promise<void> {
    await Promise.all([...this.chains]);
  }

  get running(): number {
    return this.pending.size;
  }

  launch(start: ToolStart): void {
    const { call, attempt } = start;
    const key = attemptKey(call.toolCallId, attempt);
    const ran = this.chained.get(key);
    if (ran) {
      // A chain ran it already, as the engine has now started it: its outcome, at once.
      this.chained.delete(key);
      const { result, durationMs } = ran;
      this.queue.push({ kind: 'attempt-finished', toolCallId: call.toolCallId, attempt, result, durationMs });
      return;
    }
    const { timing } = this.input;
    const chainTimeoutMs = quickChainWindowMs + maxQuickTimeoutMs + timing.heartbeatTimeoutMs;
    if (
      this.chainFrom &&
      call.policy.quick &&
      mayBeginQuickChain({ view: this.chainFrom.view, start, now: Date.now(), chainTimeoutMs })
    ) {
      this.launchChain(start, this.chainFrom, chainTimeoutMs);
      return;
    }
    // The Web UI shows this instead of a bare `runTool` (user metadata: replay does not match on it).
    const summary = toolSummary({ call, attempt });
    // To the worker that holds the session; a worker that does not take it soon is gone.
    const server = call.policy.quick ? undefined : call.policy.session;
    const holding = server !== undefined ? this.holder.launch() : undefined;
    const pinnedTo = holding?.pinnedTo;
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
          ...(pinnedTo
            ? { taskQueue: pinnedTo, scheduleToStartTimeout: timing.sessionWorkerWaitMs ?? 10_000 }
            : {}),
        });
    const session: ToolSession | undefined = holding
      ? {
          key: this.session?.key ?? this.input.turnId,
          opened: holding.opened,
          ...(holding.holder ? { holder: holding.holder } : {}),
        }
      : this.session;
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
        ...(session ? { session } : {}),
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
      ({ result, durationMs, sessionQueue }) => {
        if (server !== undefined && holding && sessionQueue !== undefined)
          this.holder.ran({ epoch: holding.epoch, ranOn: sessionQueue, server });
        ended({ kind: 'attempt-finished', toolCallId, attempt, result, durationMs });
      },
      (error: unknown) => {
        const gone =
          pinnedTo !== undefined ? this.sessionWorkerGone(error, pinnedTo, toolCallId, attempt) : undefined;
        ended(gone ?? this.failedAttempt(error, call.policy, toolCallId, attempt));
      },
    );
    this.pending.set(key, done);
  }

  /**
   * Runs this quick call and those the engine starts after it in one local activity (core's
   * `runQuickChain`); the first outcome is queued now, the rest kept until the engine starts them.
   */
  private launchChain(start: ToolStart, engine: TurnEngine, chainTimeoutMs: number): void {
    const { call, attempt } = start;
    const { toolCallId } = call;
    const key = attemptKey(toolCallId, attempt);
    const activities = proxyLocalActivities<TurnActivities>({
      summary: `${toolSummary({ call, attempt })}, then the quick calls after it`,
      startToCloseTimeout: chainTimeoutMs,
      cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
      retry: { maximumAttempts: 1 },
    });
    const ended = (event: HostEvent) => {
      this.pending.delete(key);
      this.chains.delete(done);
      this.queue.pushAttemptEnded(event);
    };
    const done: Promise<void> = activities
      .runQuickChain({
        turnId: this.input.turnId,
        snapshot: quickChainSnapshot(engine),
        first: {
          toolCallId,
          attempt,
          approved: start.approved,
          idempotencyKey: start.idempotencyKey,
          timeoutMs: start.timeoutMs,
        },
        now: Date.now(),
        maxOutputBytes: this.input.maxOutputBytes,
        ...(this.session ? { session: this.session } : {}),
      })
      .then(
        ({ attempts }) => {
          const [head, ...rest] = attempts;
          if (head?.toolCallId !== toolCallId || head.attempt !== attempt) {
            ended({
              kind: 'attempt-failed',
              toolCallId,
              attempt,
              message: 'the quick chain did not run its first call',
            });
            return;
          }
          for (const later of rest) this.chained.set(attemptKey(later.toolCallId, later.attempt), later);
          ended({
            kind: 'attempt-finished',
            toolCallId,
            attempt,
            result: head.result,
            durationMs: head.durationMs,
          });
        },
        (error: unknown) => ended(this.failedAttempt(error, call.policy, toolCallId, attempt)),
      );
    this.pending.set(key, done);
    this.chains.add(done);
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

  /**
   * A session call whose worker timed out: the worker that held the sessions is taken to be gone,
   * so the next calls go to any worker (which opens sessions anew, and says so). One it never took
   * did not start: the engine starts it again, without counting an attempt.
   */
  private sessionWorkerGone(
    error: unknown,
    queue: string,
    toolCallId: string,
    attempt: number,
  ): HostEvent | undefined {
    const cause = error instanceof ActivityFailure ? error.cause : undefined;
    if (!(cause instanceof TimeoutFailure)) return undefined;
    this.holder.gone(queue);
    if (cause.timeoutType !== 'SCHEDULE_TO_START') return undefined;
    return {
      kind: 'attempt-not-started',
      toolCallId,
      attempt,
      detail: `the worker that held its session did not take it: ${failureMessage(error)}`,
    };
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

/** An attempt's key among those running or run: `callId#attempt`. */
function attemptKey(toolCallId: string, attempt: number): string {
  return `${toolCallId}#${attempt}`;
}

function revisionOneRetry(policy: CallPolicy) {
  return {
    maximumAttempts: policy.retrySafe ? Math.max(3, policy.retry.maxAttempts) : 1,
    initialInterval: Math.max(1, policy.retry.initialDelayMs),
    backoffCoefficient: policy.retry.backoffCoefficient,
    maximumInterval: Math.max(1, policy.retry.maxDelayMs),
  };
}
