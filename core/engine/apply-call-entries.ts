import { chargeSpent } from '../budget/budget-check';
import type { AttemptResult } from '../schema/attempt-result';
import type { JournalEntry } from '../schema/journal-entry';
import type { TextPart } from '../schema/messages';
import { copyOutput, type ToolOutput } from '../schema/tool-output';
import type { HaltReason } from '../schema/turn-status';
import { retryDelay } from '../tools/retry-decision';
import { backgroundCall, batchOutputOf, deliveryPart } from './background-calls';
import type { CallState, TurnState } from './turn-state';

/** The reducer's part for a call's own entries: attempts, halts, recorded outputs and deliveries. */
export function applyAttemptFinished(
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
    if (result.inputSchema) call.approvalSchema = result.inputSchema;
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
  if (delay !== undefined && state.revision >= 3) {
    // It would have been tried again: it did not finish, it was stopped. The failure is context.
    const detail = stopped ?? state.halt?.detail ?? 'stopped';
    decide(call, interruptedCall(call, detail, state.halt?.reason ?? 'background-wait-expired', state));
    return state;
  }
  // Built by assignment, not conditional spreads: this runs for every call of every turn.
  const output: ToolOutput = { status: result.status, content: result.content, attempts: ranAttempts(call) };
  if (result.status !== 'ok') output.errorType = result.errorType;
  // A call stopped by the engine did not finish for the engine's reason, in the same words everywhere.
  if (stopped && result.status === 'interrupted') output.content = `not completed: ${stopped}`;
  if ('truncated' in result && result.truncated) output.truncated = true;
  if (result.status === 'ok' && result.files) output.files = result.files;
  charge(state, output, result);
  decide(call, output);
  return state;
}

/**
 * What the sub-agents of the attempt a call's output comes from spent (`SubAgentSpent`): charged to
 * the turn with that output, so once a call however many attempts attached to the same sub-agent
 * turn. Only a result that says so charges anything: histories from before it replay as they did.
 */
function charge(state: TurnState, output: ToolOutput, result: AttemptResult | undefined): void {
  if (result === undefined || (result.status !== 'ok' && result.status !== 'error')) return;
  if (result.spent === undefined) return;
  output.spent = result.spent;
  chargeSpent(state.spent, result.spent);
}

/**
 * A halt stops new work. Calls that have not started (or wait for a retry or an approval) get an
 * interrupted output now; running calls finish and their results are recorded as they come back.
 * A cancellation aborts them (their hosts do), and what they report is still the truth: a call
 * that finished its effect is done, one that stopped is interrupted. (Revision 1 marked running
 * calls interrupted at the cancel, whatever they did afterwards.)
 */
export function applyHalt(state: TurnState, reason: HaltReason, detail: string): TurnState {
  state.halt = { reason, detail };
  state.pendingHalt = undefined;
  const interruptRunning = reason === 'cancelled' && state.revision < 2;
  for (const call of state.batch?.calls ?? []) {
    if (call.phase === 'done' || (call.phase === 'running' && !interruptRunning)) continue;
    decide(call, interruptedCall(call, detail, reason, state));
  }
  // A background call may run for hours: a halt stops it (its host aborts it) rather than waiting.
  for (const call of state.background) {
    if (call.phase === 'running') call.stopRequested ??= detail;
    else if (call.phase !== 'done') decide(call, interruptedCall(call, detail, reason, state));
  }
  return state;
}

/**
 * The output of a call stopped before it finished. Since revision 3 a call stopped between
 * attempts (waiting for a retry, or failing retryably after the stop) says how its last attempt
 * failed: the model learns what was tried, and that it was not done (revision 2 recorded such a
 * late failure as the call's error, as if it had finished). It is the output that last attempt
 * comes to, so it is charged what that attempt's sub-agents spent.
 */
function interruptedCall(call: CallState, detail: string, errorType: string, state: TurnState): ToolOutput {
  const last = call.attempts.at(-1)?.result;
  const context =
    state.revision >= 3 && last?.status === 'error'
      ? `; its last attempt (${call.attempts.length}) failed: ${
          typeof last.content === 'string' ? last.content : JSON.stringify(last.content ?? null)
        }`
      : '';
  const output: ToolOutput = {
    status: 'interrupted',
    content: `not completed: ${detail}${context}`,
    attempts: ranAttempts(call),
    errorType,
  };
  // Its last attempt finished and was to be tried again: its sub-agents' spending stands.
  charge(state, output, last);
  return output;
}

/** The wait for background calls ran out: running calls are stopped, waiting ones interrupted. */
export function stopCall(state: TurnState, call: CallState, detail: string): void {
  if (call.phase === 'done') return;
  call.stopRequested ??= detail;
  if (call.phase !== 'running') decide(call, interruptedCall(call, detail, 'background-wait-expired', state));
}

export function applyRecorded(state: TurnState, toolCallId: string): TurnState {
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
      args: call.approval?.input ?? call.call.input,
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
export function applyDelivered(
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
export function lostOutcomeText(call: CallState, state: TurnState): string {
  const name = call.call.toolName;
  if (!call.call.policy.retrySafe)
    return `${name}: outcome unknown after its host was lost; not retried because the tool is not retry-safe`;
  if (state.halt)
    return `${name}: outcome unknown after its host was lost; not retried: ${state.halt.detail}`;
  return `${name}: outcome unknown after its host was lost ${(call.lostAttempts ?? 0) + 1} times; not retried again`;
}

export function decide(call: CallState, output: ToolOutput): void {
  // A call that ran with an approver's arguments says so, whatever came of it.
  const edited = call.approval?.input;
  if (edited !== undefined && call.attempts.length > 0 && output.ranWith === undefined)
    output.ranWith = call.approval?.by ? { input: edited, by: call.approval.by } : { input: edited };
  call.final = output;
  call.phase = 'done';
  call.retryAt = undefined;
}

/** Attempts that started (an attempt stopped by an approval request is not one). */
export function ranAttempts(call: CallState): number {
  return call.attempts.length;
}

export function callOf(state: TurnState, toolCallId: string): CallState {
  const call = state.batch?.byId.get(toolCallId) ?? backgroundCall(state, toolCallId);
  if (!call)
    throw new Error(
      `journal names tool call ${toolCallId}, which is not in the current batch nor running in the background`,
    );
  return call;
}
