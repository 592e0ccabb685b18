import { LoopDetector } from '../detection/loop-detector';
import { WavePlanner } from '../dispatch/plan-waves';
import type { JournalEntry } from '../schema/journal-entry';
import type { TextPart } from '../schema/messages';
import type { PreparedCall } from '../schema/prepared-call';
import { copyOutput, type ToolOutput } from '../schema/tool-output';
import { type TurnConfig, turnConfigSchema } from '../schema/turn-config';
import type { HaltReason } from '../schema/turn-status';
import { addUsage } from '../schema/usage';
import { retryDelay } from '../tools/retry-decision';
import { backgroundCall, batchOutputOf, deliveryPart } from './background-calls';
import { type BatchState, type CallState, initialState, type TurnState } from './turn-state';

/**
 * The reducer: folds one journal entry into the state. Replaying a journal through it rebuilds a
 * turn exactly; it decides nothing that is not determined by the entries already applied (retry
 * delays and loop verdicts are pure functions of recorded results), so a replay and the original
 * run agree.
 */
export function applyEntry(state: TurnState | undefined, entry: JournalEntry): TurnState {
  if (entry.type === 'turn.started') {
    // The defaults hold only until turn.opened brings the turn's own configuration.
    return initialState({
      turnId: entry.turnId,
      revision: entry.revision ?? 1,
      config: defaultConfig(),
      input: entry.input,
    });
  }
  if (!state) throw new Error(`journal does not begin with turn.started (found ${entry.type})`);
  switch (entry.type) {
    case 'turn.opened':
      if (state.spent.startedAt === 0) state.spent.startedAt = entry.at;
      state.config = entry.config;
      state.detector = new LoopDetector(entry.config.detection);
      return state;
    case 'model.requested':
      state.backgroundWaitSince = undefined;
      state.modelInFlight = true;
      state.modelFailures = 0;
      state.modelRetryAt = undefined;
      return state;
    case 'model.attempt_failed':
      if (!state.modelInFlight || entry.responseIndex !== state.responseIndex) return state;
      state.modelFailures = Math.max(state.modelFailures, entry.attempt);
      state.modelRetryAt = entry.retryAt;
      return state;
    case 'model.responded':
      return applyResponse(state, entry);
    case 'model.call_accepted':
      return applyAccepted(state, entry);
    case 'tool.attempt_started': {
      const call = callOf(state, entry.toolCallId);
      if (call.phase === 'done') return state;
      if (!call.launched) {
        call.launched = true;
        state.spent.toolCalls += 1;
      }
      const again = call.attempts.findIndex((a) => a.attempt === entry.attempt);
      if (again >= 0) call.attempts.splice(again, 1);
      call.attempts.push({ attempt: entry.attempt, startedAt: entry.at });
      call.phase = 'running';
      call.retryAt = undefined;
      if (call.call.policy.background && !call.backgrounded) {
        call.backgrounded = true;
        state.background.push(call);
      }
      return state;
    }
    case 'tool.attempt_finished':
      return applyAttemptFinished(state, entry);
    case 'tool.attempt_lost': {
      const call = callOf(state, entry.toolCallId);
      if (call.phase === 'done') return state;
      if (entry.rerun && !call.stopRequested) {
        call.attempts = call.attempts.filter((a) => a.attempt !== entry.attempt);
        call.phase = 'pending';
        call.nextAttempt = entry.attempt;
        call.lostAttempts = (call.lostAttempts ?? 0) + 1;
      } else {
        decide(call, {
          status: 'interrupted',
          content: lostOutcomeText(call, state),
          attempts: ranAttempts(call),
          errorType: 'outcome-unknown',
        });
      }
      return state;
    }
    case 'tool.attempt_not_started': {
      const call = callOf(state, entry.toolCallId);
      if (call.phase === 'done') return state;
      call.attempts = call.attempts.filter((a) => a.attempt !== entry.attempt);
      call.nextAttempt = entry.attempt;
      call.notStartedAttempts = (call.notStartedAttempts ?? 0) + 1;
      if (entry.retryAt === undefined || call.stopRequested) {
        decide(call, {
          status: 'interrupted',
          content: `not completed: ${call.stopRequested ?? state.halt?.detail ?? 'the turn stopped'} (the call never started: ${entry.detail})`,
          attempts: ranAttempts(call),
          errorType: state.halt?.reason ?? 'interrupted',
        });
      } else {
        call.phase = 'retry-wait';
        call.retryAt = entry.retryAt;
      }
      return state;
    }
    case 'tool.approval_requested': {
      const call = callOf(state, entry.toolCallId);
      if (call.phase !== 'done') call.approvalRequestedAt = entry.at;
      return state;
    }
    case 'tool.approval_decided': {
      const call = callOf(state, entry.toolCallId);
      if (call.phase === 'done') return state;
      call.approval = { approved: entry.approved, ...(entry.reason ? { reason: entry.reason } : {}) };
      call.approvalRequestedAt = undefined;
      if (entry.approved) call.phase = 'pending';
      else {
        decide(call, {
          status: 'error',
          content: entry.expired
            ? `no approval decision within ${entry.reason ?? 'the approval timeout'}; the call was not run`
            : `the call was rejected by an approver${entry.reason ? `: ${entry.reason}` : ''}`,
          attempts: ranAttempts(call),
          errorType: entry.expired ? 'approval-expired' : 'rejected',
        });
      }
      return state;
    }
    case 'turn.halted':
      return applyHalt(state, entry.reason, entry.detail);
    case 'tool.completed':
      return applyRecorded(state, entry.toolCallId);
    case 'background.delivered':
      return applyDelivered(state, entry.deliveries);
    case 'background.waiting':
      state.backgroundWaitSince = entry.at;
      return state;
    case 'background.stopped':
      for (const call of state.background) stopCall(call, entry.detail);
      return state;
    case 'turn.finished':
      state.finished = { status: entry.status, ...(entry.reason ? { reason: entry.reason } : {}) };
      state.modelInFlight = false;
      return state;
  }
}

let defaults: TurnConfig | undefined;
function defaultConfig(): TurnConfig {
  defaults ??= turnConfigSchema.parse({});
  return defaults;
}

function applyResponse(
  state: TurnState,
  entry: Extract<JournalEntry, { type: 'model.responded' }>,
): TurnState {
  state.messages.push(entry.message);
  if (entry.responseId !== undefined && !entry.message.partial)
    state.receipt = {
      responseIndex: entry.responseIndex,
      responseId: entry.responseId,
      messageCount: state.messages.length,
    };
  state.modelInFlight = false;
  state.modelFailures = 0;
  state.modelRetryAt = undefined;
  state.spent.modelResponses += 1;
  state.spent.usage = addUsage(state.spent.usage, entry.usage);
  state.responseIndex = entry.responseIndex + 1;
  state.modelDone = entry.calls.length === 0;
  const streamed = streamingBatch(state, entry.responseIndex);
  if (entry.calls.length === 0 && !streamed) {
    state.batch = undefined;
    return state;
  }
  // Calls accepted while the response streamed are already in the batch (some may be running);
  // the response lists them first, in the same order, and adds any that were not accepted yet.
  const batch = streamed ?? openBatch(state, entry.responseIndex);
  for (const call of entry.calls.slice(batch.calls.length)) addCall(state, batch, call);
  batch.streamOpen = false;
  return state;
}

/** A call complete in a still-streaming response joins the batch (and may start at once). */
function applyAccepted(
  state: TurnState,
  entry: Extract<JournalEntry, { type: 'model.call_accepted' }>,
): TurnState {
  const batch = streamingBatch(state, entry.responseIndex) ?? openBatch(state, entry.responseIndex);
  if (batch.byId.has(entry.call.toolCallId)) return state;
  addCall(state, batch, entry.call);
  return state;
}

function streamingBatch(state: TurnState, responseIndex: number): BatchState | undefined {
  const batch = state.batch;
  return batch?.streamOpen && batch.responseIndex === responseIndex ? batch : undefined;
}

function openBatch(state: TurnState, responseIndex: number): BatchState {
  const batch: BatchState = { responseIndex, calls: [], byId: new Map(), recordedCount: 0, streamOpen: true };
  state.batch = batch;
  return batch;
}

function addCall(state: TurnState, batch: BatchState, prepared: PreparedCall): void {
  const position = batch.calls.length;
  // Waves are contiguous, so a call joining the end never changes the earlier calls' waves.
  if (!batch.planner) {
    batch.planner = new WavePlanner(state.config.dispatch.mode);
    for (const c of batch.calls) batch.planner.add(c.call);
  }
  const call: CallState = {
    call: prepared,
    position,
    wave: batch.planner.add(prepared),
    phase: 'pending',
    attempts: [],
    nextAttempt: 1,
    launched: false,
    recorded: false,
  };
  batch.calls.push(call);
  batch.byId.set(prepared.toolCallId, call);
  state.callIds.add(prepared.toolCallId);
  if (prepared.rejection) {
    decide(call, {
      status: 'error',
      content: prepared.rejection.message,
      attempts: 0,
      errorType: prepared.rejection.errorType,
    });
  } else if (state.halt) {
    decide(call, {
      status: 'interrupted',
      content: `not completed: ${state.halt.detail}`,
      attempts: 0,
      errorType: state.halt.reason,
    });
  }
}

function applyAttemptFinished(
  state: TurnState,
  entry: Extract<JournalEntry, { type: 'tool.attempt_finished' }>,
): TurnState {
  const call = callOf(state, entry.toolCallId);
  const attempt = call.attempts.find((a) => a.attempt === entry.attempt);
  if (call.phase === 'done' || !attempt) return state;
  attempt.finishedAt = entry.at;
  attempt.durationMs = entry.durationMs;
  attempt.result = entry.result;
  const result = entry.result;
  const stopped = call.stopRequested;
  if (result.status === 'needs-approval' && (state.halt || stopped)) {
    // Nothing waits for a decision once the turn is halting (or the call is being stopped).
    decide(call, {
      status: 'interrupted',
      content: `not completed: ${stopped ?? state.halt?.detail}`,
      attempts: ranAttempts(call),
      errorType: state.halt?.reason ?? 'background-wait-expired',
    });
    return state;
  }
  if (result.status === 'needs-approval') {
    // The hook stopped the attempt before the tool ran: it will run again, as the same attempt, once approved.
    call.attempts = call.attempts.filter((a) => a !== attempt);
    call.phase = 'awaiting-approval';
    call.approvalReason = result.reason;
    call.nextAttempt = entry.attempt;
    return state;
  }
  const delay = retryDelay({ policy: call.call.policy.retry, attempt: entry.attempt, result });
  if (delay !== undefined && !state.halt && !stopped) {
    call.phase = 'retry-wait';
    call.nextAttempt = entry.attempt + 1;
    call.retryAt = entry.at + delay;
    return state;
  }
  // Built by assignment, not conditional spreads: this runs for every call of every turn.
  const output: ToolOutput = { status: result.status, content: result.content, attempts: ranAttempts(call) };
  if (result.status !== 'ok') output.errorType = result.errorType;
  // A call stopped by the engine did not finish for the engine's reason, in the same words everywhere.
  if (stopped && result.status === 'interrupted') output.content = `not completed: ${stopped}`;
  if ('truncated' in result && result.truncated) output.truncated = true;
  decide(call, output);
  return state;
}

/**
 * A halt stops new work. Calls that have not started (or wait for a retry or an approval) get an
 * interrupted output now; running calls finish and their results are recorded as they come back.
 * A cancellation aborts them (their hosts do), and what they report is still the truth: a call
 * that finished its effect is done, one that stopped is interrupted. (Revision 1 marked running
 * calls interrupted at the cancel, whatever they did afterwards.)
 */
function applyHalt(state: TurnState, reason: HaltReason, detail: string): TurnState {
  state.halt = { reason, detail };
  state.pendingHalt = undefined;
  const interruptRunning = reason === 'cancelled' && state.revision < 2;
  for (const call of state.batch?.calls ?? []) {
    if (call.phase === 'done' || (call.phase === 'running' && !interruptRunning)) continue;
    decide(call, {
      status: 'interrupted',
      content: `not completed: ${detail}`,
      attempts: ranAttempts(call),
      errorType: reason,
    });
  }
  // A background call may run for hours: a halt stops it (its host aborts it) rather than waiting.
  for (const call of state.background) {
    if (call.phase === 'running') call.stopRequested ??= detail;
    else if (call.phase !== 'done')
      decide(call, {
        status: 'interrupted',
        content: `not completed: ${detail}`,
        attempts: ranAttempts(call),
        errorType: reason,
      });
  }
  return state;
}

/** The wait for background calls ran out: running calls are stopped, waiting ones interrupted. */
function stopCall(call: CallState, detail: string): void {
  if (call.phase === 'done') return;
  if (call.phase === 'running') {
    call.stopRequested ??= detail;
    return;
  }
  call.stopRequested ??= detail;
  decide(call, {
    status: 'interrupted',
    content: `not completed: ${detail}`,
    attempts: ranAttempts(call),
    errorType: 'background-wait-expired',
  });
}

function applyRecorded(state: TurnState, toolCallId: string): TurnState {
  const batch = state.batch;
  const call = callOf(state, toolCallId);
  const slot = batchOutputOf(call);
  if (!batch || !slot || call.recorded) return state;
  call.recorded = true;
  batch.recordedCount = call.position + 1;
  // A background call's true output is observed when it is delivered, not its placeholder now.
  const output = call.backgrounded ? slot : observed(state, call);
  if (!call.backgrounded) call.final = output;
  state.outputs.push({ toolCallId, toolName: call.call.toolName, output });
  if (batch.recordedCount === batch.calls.length) {
    state.messages.push({
      role: 'tool',
      content: batch.calls.map((c) => ({
        type: 'tool-result' as const,
        toolCallId: c.call.toolCallId,
        toolName: c.call.toolName,
        output: (c.backgrounded ? batchOutputOf(c) : c.final) as ToolOutput,
      })),
    });
  }
  return state;
}

/**
 * The call's output as recorded, with the loop detector's notice: detection sees every attempt
 * that produced a result, in the order outputs are recorded.
 */
function observed(state: TurnState, call: CallState): ToolOutput {
  const output = copyOutput(call.final as ToolOutput);
  for (const attempt of call.attempts) {
    const result = attempt.result;
    if (!result || !('resultHash' in result)) continue;
    const verdict = state.detector.observe({
      toolName: call.call.toolName,
      args: call.call.input,
      resultHash: result.resultHash,
      content: result.content,
    });
    if (verdict.kind === 'warn') output.notice = verdict.message;
    if (verdict.kind === 'stop' && !state.halt && !state.pendingHalt) {
      output.notice = verdict.message;
      state.pendingHalt = { reason: 'loop_detected', detail: verdict.message };
    }
  }
  return output;
}

/**
 * Background outputs delivered: each takes the place of its placeholder among the outputs, and the
 * transcript gets one user message with a part per call; the model has something new to answer.
 */
function applyDelivered(
  state: TurnState,
  deliveries: Extract<JournalEntry, { type: 'background.delivered' }>['deliveries'],
): TurnState {
  const parts: TextPart[] = [];
  for (const delivery of deliveries) {
    const index = state.background.findIndex((c) => c.call.toolCallId === delivery.toolCallId);
    const call = state.background[index];
    if (!call?.final) continue;
    state.background.splice(index, 1);
    const output = observed(state, call);
    call.final = output;
    state.delivered.add(delivery.toolCallId);
    const at = state.outputs.findIndex((o) => o.toolCallId === delivery.toolCallId);
    const entry = { toolCallId: delivery.toolCallId, toolName: call.call.toolName, output };
    if (at >= 0) state.outputs[at] = entry;
    else state.outputs.push(entry);
    parts.push(deliveryPart(entry));
  }
  if (parts.length === 0) return state;
  state.messages.push({ role: 'user', content: parts });
  state.modelDone = false;
  return state;
}

/** The same words on every executor: the model learns the effect may or may not have happened. */
function lostOutcomeText(call: CallState, state: TurnState): string {
  const name = call.call.toolName;
  if (!call.call.policy.retrySafe)
    return `${name}: outcome unknown after its host was lost; not retried because the tool is not retry-safe`;
  if (state.halt)
    return `${name}: outcome unknown after its host was lost; not retried: ${state.halt.detail}`;
  return `${name}: outcome unknown after its host was lost ${(call.lostAttempts ?? 0) + 1} times; not retried again`;
}

function decide(call: CallState, output: ToolOutput): void {
  call.final = output;
  call.phase = 'done';
  call.retryAt = undefined;
}

/** Attempts that started (an attempt stopped by an approval request is not one). */
function ranAttempts(call: CallState): number {
  return call.attempts.length;
}

function callOf(state: TurnState, toolCallId: string): CallState {
  const call = state.batch?.byId.get(toolCallId) ?? backgroundCall(state, toolCallId);
  if (!call)
    throw new Error(
      `journal names tool call ${toolCallId}, which is not in the current batch nor running in the background`,
    );
  return call;
}
