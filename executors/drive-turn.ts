import {
  type ApprovalRequest,
  type AttemptResult,
  buildModelResponse,
  type JournalEntry,
  type ModelCall,
  ModelError,
  type ModelFailure,
  type PreparedCall,
  prepareCall,
  runToolAttempt,
  type ToolStart,
  type TurnEngine,
  type TurnOperation,
  type TurnResult,
} from '../core';
import { streamResponse } from '../models';
import { toolSpecs } from '../models/tool-specs';
import type { JournalWriter } from './journal-writer';
import type { TurnHost } from './turn-host';
import { WakeSignal } from './wake-signal';

interface Completion {
  toolCallId: string;
  attempt: number;
  result: AttemptResult;
  durationMs: number;
}

/**
 * Carries out a turn in this process: asks the engine what next, persists the entries it returns,
 * then does it. The engine decides everything (waves, retries of tools and of the model, what a
 * cancel leaves); this loop only feeds it what happened. Tool attempts run as plain promises,
 * each with its own abort signal; their completions are folded back one batch at a time, so the
 * engine never sees two things at once.
 */
export async function driveTurn({
  engine,
  writer,
  host,
  signal,
}: {
  engine: TurnEngine;
  writer: JournalWriter;
  host: TurnHost;
  signal?: AbortSignal;
}): Promise<TurnResult> {
  const { timers } = host;
  const wake = new WakeSignal();
  // Attempts still running. Each gets a signal of its own from runToolAttempt (linked to this
  // turn-wide one only while it runs, so a finished call's signal never fires on a later cancel
  // and no listeners pile up); one controller for the turn keeps the per-call cost down.
  let running = 0;
  let toolAbort: AbortController | undefined;
  let allDone: (() => void) | undefined;
  const completions: Completion[] = [];
  const decisions: { toolCallId: string; approved: boolean; reason?: string }[] = [];
  const asked = new Set<string>();
  let cancelled = false;
  const onAbort = () => wake.notify();
  signal?.addEventListener('abort', onAbort);
  const renewal = setInterval(() => writer.renew().catch(() => {}), Math.max(50, host.leaseMs / 3));

  const launch = (start: ToolStart) => {
    running += 1;
    toolAbort ??= new AbortController();
    void runToolAttempt({
      turnId: engine.turnId,
      call: start.call,
      attempt: start.attempt,
      approved: start.approved,
      idempotencyKey: start.idempotencyKey,
      timeoutMs: start.timeoutMs,
      registry: host.registry,
      hooks: host.hooks,
      observers: host.observers,
      health: host.health,
      timers,
      signal: toolAbort.signal,
    }).then(({ result, durationMs }) => {
      completions.push({ toolCallId: start.call.toolCallId, attempt: start.attempt, result, durationMs });
      running -= 1;
      if (running === 0) allDone?.();
      wake.notify();
    });
  };
  const attemptsEnded = () =>
    running === 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          allDone = resolve;
        });

  // Every completion that arrived since the last look, folded in and persisted in one append.
  const fold = async () => {
    if (completions.length === 0) return;
    const now = timers.now();
    const entries: JournalEntry[] = [];
    for (const c of completions.splice(0)) entries.push(...engine.onToolAttemptFinished({ ...c, now }));
    await writer.append(entries);
  };
  // A call complete in the stream is accepted at once and starts if dispatch allows it
  // (parallel mode, concurrency-safe, in the current wave); the others wait for the end.
  const startMidStream = async (call: PreparedCall) => {
    await fold();
    // The call's acceptance and its start are persisted together, before it runs.
    const accepted = engine.onCallStreamed({ responseIndex: engine.view.responseIndex, call });
    const { entries, starts } = engine.streamStarts(timers.now());
    await writer.append(accepted.length === 0 ? entries : [...accepted, ...entries]);
    for (const start of starts) launch(start);
  };

  try {
    for (;;) {
      // Results that came back before the cancel are recorded first: they are what happened.
      await fold();
      if (signal?.aborted && !cancelled) {
        cancelled = true;
        await writer.append(engine.onCancel({ reason: reasonOf(signal) }));
        toolAbort?.abort(signal.reason);
      }
      for (const d of decisions.splice(0)) await writer.append(engine.onApproval(d));

      const step = engine.next(timers.now());
      await writer.append(step.entries);
      const op: TurnOperation = step.op;
      switch (op.kind) {
        case 'finished':
          await attemptsEnded();
          return { ...op.outcome, events: writer.transcriptEvents() };
        case 'call-model':
          await writer.append(await callModel({ engine, host, op, signal, onToolCall: startMidStream }));
          break;
        case 'run-tools':
          for (const start of op.starts) launch(start);
          break;
        case 'wait':
          for (const request of op.approvals) {
            if (asked.has(request.toolCallId)) continue;
            asked.add(request.toolCallId);
            void askApproval(host, engine.turnId, request).then((d) => {
              decisions.push({ toolCallId: request.toolCallId, ...d });
              wake.notify();
            });
          }
          await wake.wait(op.untilMs === undefined ? undefined : op.untilMs - timers.now());
          break;
        default:
          throw new Error(`unknown operation ${JSON.stringify(op satisfies never)}`);
      }
    }
  } finally {
    clearInterval(renewal);
    signal?.removeEventListener('abort', onAbort);
    // Attempts still running when the turn ends (it threw) are told to stop.
    if (running > 0) toolAbort?.abort(new Error('the turn ended'));
    await writer.release().catch(() => {});
  }
}

async function askApproval(
  host: TurnHost,
  turnId: string,
  request: ApprovalRequest,
): Promise<{ approved: boolean; reason?: string }> {
  if (!host.approver)
    return {
      approved: false,
      reason:
        'this executor has no approver configured (pass `approver` to decide on calls that need approval)',
    };
  try {
    return await host.approver({ ...request, turnId });
  } catch (error) {
    return { approved: false, reason: `the approver failed: ${describeError(error)}` };
  }
}

/**
 * One attempt of a model request; the engine's entries for how it went (a response, or a failure
 * it decides to retry or not). The request is bounded by the operation's timeout.
 */
async function callModel({
  engine,
  host,
  op,
  signal,
  onToolCall,
}: {
  engine: TurnEngine;
  host: TurnHost;
  op: ModelCall;
  signal?: AbortSignal;
  /** Called with each tool call complete in the stream, before the response ends. */
  onToolCall: (call: PreparedCall) => Promise<void>;
}): Promise<JournalEntry[]> {
  const priorCallIds = new Set(engine.view.callIds);
  const maxArgumentBytes = engine.view.config.limits.maxArgumentBytes;
  const abort = new AbortController();
  const timedOut = new Error(`the model request timed out after ${op.timeoutMs} ms`);
  const timer = host.timers.setTimeout(() => abort.abort(timedOut), op.timeoutMs);
  const onCancel = () => abort.abort(signal?.reason);
  signal?.addEventListener('abort', onCancel, { once: true });
  const streamed = new Set(priorCallIds);
  const prepared: PreparedCall[] = [];
  try {
    const { collected, broken } = await streamResponse({
      model: host.model,
      request: {
        turnId: engine.turnId,
        responseIndex: op.responseIndex,
        messages: op.messages,
        tools: toolSpecs(host.registry),
        idempotencyKey: op.idempotencyKey,
        signal: abort.signal,
      },
      observers: host.observers,
      onPart: async (part) => {
        if (part.type !== 'tool-call') return;
        const call = prepareCall({
          registry: host.registry,
          raw: part,
          position: prepared.length,
          responseIndex: op.responseIndex,
          usedIds: streamed,
          maxArgumentBytes,
        });
        prepared.push(call);
        streamed.add(call.toolCallId);
        await onToolCall(call);
      },
    });
    const response = buildModelResponse({
      collected,
      registry: host.registry,
      responseIndex: op.responseIndex,
      priorCallIds,
      prepared,
      streamedCallCount: prepared.length,
      maxArgumentBytes,
      ...(broken ? { partialReason: `the response stream broke: ${broken.message}` } : {}),
    });
    return engine.onModelResponded(response);
  } catch (error) {
    if (signal?.aborted) return [];
    const failure: ModelFailure =
      abort.signal.reason === timedOut
        ? { message: timedOut.message, retryable: true }
        : ModelError.isInstance(error)
          ? {
              message: error.message,
              retryable: error.retryable,
              ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
            }
          : { message: describeError(error), retryable: false };
    return engine.onModelFailed({
      responseIndex: op.responseIndex,
      attempt: op.attempt,
      error: failure,
      now: host.timers.now(),
    });
  } finally {
    host.timers.clearTimeout(timer);
    signal?.removeEventListener('abort', onCancel);
  }
}

function describeError(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return 'an error that cannot be described';
  }
}

function reasonOf(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (typeof reason === 'string') return reason;
  if (reason instanceof Error && reason.name !== 'AbortError') return reason.message;
  return 'the turn was cancelled';
}
