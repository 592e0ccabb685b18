import type { Context } from '@opentelemetry/api';
import { type HostEvent, runToolAttempt, type ToolSession, type ToolStart } from '../core';
import { endToolAttemptSpan, startToolAttemptSpan } from '../tracing/trace-tool-attempt';
import type { TurnHost } from './turn-host';

/**
 * Runs a turn's tool attempts as plain promises and queues how each ended. Each attempt gets a
 * signal of its own from `runToolAttempt`, linked to this turn-wide one only while it runs (a
 * finished call's signal never fires on a later cancel, and no listeners pile up); one controller
 * per turn keeps the per-call cost down.
 */
export class InProcessTools {
  private running = 0;
  private controller?: AbortController;
  /** Background calls may be stopped one by one (the turn stops waiting for them), so each has its own. */
  private readonly backgroundControllers = new Map<string, AbortController>();
  private allDone?: () => void;

  constructor(
    private readonly turnId: string,
    private readonly host: TurnHost,
    private readonly queue: HostEvent[],
    private readonly notify: () => void,
    /** The turn's span: calls launched while a response streams belong to the turn, not to the request. */
    private readonly traceParent?: Context,
    /** The session the turn's calls belong to (a conversation's turn: see `RunTurnArgs.session`). */
    private readonly session?: ToolSession,
  ) {}

  launch(start: ToolStart): void {
    this.running += 1;
    this.controller ??= new AbortController();
    const { toolCallId } = start.call;
    const { attempt } = start;
    // runToolAttempt never rejects: every way an attempt can end is a result.
    let { signal } = this.controller;
    if (start.call.policy.background) {
      const own = new AbortController();
      this.backgroundControllers.set(toolCallId, own);
      signal = own.signal;
    }
    const { tracing } = this.host;
    // The span ends in this attempt's one `then`, not in one of its own (a promise per call more).
    const span = tracing
      ? startToolAttemptSpan({
          tracing,
          turnId: this.turnId,
          call: start.call,
          attempt,
          parent: this.traceParent,
        })
      : undefined;
    void runToolAttempt({
      turnId: this.turnId,
      call: start.call,
      attempt,
      approved: start.approved,
      idempotencyKey: start.idempotencyKey,
      timeoutMs: start.timeoutMs,
      registry: this.host.registry,
      hooks: this.host.hooks,
      observers: this.host.observers,
      health: this.host.health,
      timers: this.host.timers,
      signal,
      storeFiles: this.host.files.store,
      session: this.session,
      ...(this.host.agents ? { agents: this.host.agents } : {}),
    }).then(({ result, durationMs }) => {
      if (span && tracing) endToolAttemptSpan({ tracing, span, result });
      this.backgroundControllers.delete(toolCallId);
      this.queue.push({ kind: 'attempt-finished', toolCallId, attempt, result, durationMs });
      this.running -= 1;
      if (this.running === 0) this.allDone?.();
      this.notify();
    });
  }

  /** Tells every running attempt to stop; what each then reports is still queued. */
  abortAll(reason: unknown): void {
    if (this.running === 0) return;
    this.controller?.abort(reason);
    for (const controller of this.backgroundControllers.values()) controller.abort(reason);
  }

  /** Tells these running attempts to stop (again is harmless); what each then reports is still queued. */
  stop(toolCallIds: readonly string[], reason: unknown): void {
    for (const id of toolCallIds) this.backgroundControllers.get(id)?.abort(reason);
  }

  /** Resolves once no attempt is running. */
  settled(): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.allDone = resolve;
    });
  }
}
