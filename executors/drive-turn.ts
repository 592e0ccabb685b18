import {
  type ApprovalRequest,
  type AttemptResult,
  buildModelResponse,
  type JournalEntry,
  ModelError,
  type ModelRequest,
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
 * then does it. Tool attempts run as plain promises; their completions are folded back into the
 * engine one at a time by this loop, so the engine never sees two things at once.
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
  // Attempts still running, and who waits for the last of them (a finished turn lets them end).
  let running = 0;
  let allDone: (() => void) | undefined;
  // One signal for every attempt of the turn: a cancel stops them all, and a controller per
  // attempt costs more than the no-op tools it would guard. Made at the first launch: a turn that
  // only talks needs none.
  let toolAbort: AbortController | undefined;
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
    runToolAttempt({
      turnId: engine.turnId,
      call: start.call,
      attempt: start.attempt,
      approved: start.approved,
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
    for (const c of completions.splice(0)) {
      entries.push(
        ...engine.onToolAttemptFinished({
          toolCallId: c.toolCallId,
          attempt: c.attempt,
          result: c.result,
          durationMs: c.durationMs,
          now,
        }),
      );
    }
    await writer.append(entries);
  };
  // A call complete in the stream is accepted at once and starts if dispatch allows it
  // (parallel mode, concurrency-safe, in the current wave); the others wait for the end.
  const startMidStream = async (call: PreparedCall) => {
    await fold();
    // The call's acceptance and its start are persisted together, before it runs.
    const accepted = engine.onCallStreamed({ responseIndex: engine.view.responseIndex, call });
    const { entries, starts } = engine.streamStarts(timers.now());
    await writer.append(
      accepted.length === 0 ? entries : entries.length === 0 ? accepted : [...accepted, ...entries],
    );
    for (const start of starts) launch(start);
  };

  try {
    for (;;) {
      if (signal?.aborted && !cancelled) {
        cancelled = true;
        await writer.append(engine.onCancel({ reason: reasonOf(signal) }));
        toolAbort?.abort(signal.reason);
      }
      await fold();
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
            askApproval(host, engine.turnId, request).then((d) => {
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
    return {
      approved: false,
      reason: `the approver failed: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

/** One model response, with retries of transient failures; the engine's entries for the outcome. */
async function callModel({
  engine,
  host,
  op,
  signal,
  onToolCall,
}: {
  engine: TurnEngine;
  host: TurnHost;
  op: Extract<TurnOperation, { kind: 'call-model' }>;
  signal?: AbortSignal;
  /** Called with each tool call complete in the stream, before the response ends. */
  onToolCall?: (call: PreparedCall) => Promise<void>;
}) {
  const priorCallIds = new Set(engine.view.callIds);
  const policy = host.modelRetry;
  const request: ModelRequest = {
    turnId: engine.turnId,
    responseIndex: op.responseIndex,
    messages: op.messages,
    tools: toolSpecs(host.registry),
    idempotencyKey: `${engine.turnId}/model/${op.responseIndex}`,
    ...(signal ? { signal } : {}),
  };
  for (let attempt = 1; ; attempt++) {
    try {
      const streamed = new Set(priorCallIds);
      const prepared: PreparedCall[] = [];
      const { collected, broken } = await streamResponse({
        model: host.model,
        request,
        observers: host.observers,
        onPart: async (part) => {
          if (part.type !== 'tool-call' || !onToolCall) return;
          const call = prepareCall({
            registry: host.registry,
            raw: part,
            position: prepared.length,
            responseIndex: op.responseIndex,
            usedIds: streamed,
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
        preparedPrefix: prepared,
        ...(broken ? { partialReason: `the response stream broke: ${broken.message}` } : {}),
      });
      return engine.onModelResponded(response);
    } catch (error) {
      if (signal?.aborted) return [];
      const modelError = ModelError.isInstance(error) ? error : undefined;
      const message = error instanceof Error ? error.message : String(error);
      if (!modelError?.retryable || attempt >= policy.maxAttempts) {
        return engine.onModelFailed({ responseIndex: op.responseIndex, error: message });
      }
      const delay =
        modelError.retryAfterMs ??
        Math.min(policy.initialDelayMs * policy.backoffCoefficient ** (attempt - 1), policy.maxDelayMs);
      await abortableSleep(delay, signal);
    }
  }
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

function reasonOf(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (typeof reason === 'string') return reason;
  if (reason instanceof Error && reason.name !== 'AbortError') return reason.message;
  return 'the turn was cancelled';
}
