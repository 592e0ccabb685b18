import type { TextPart } from '../schema/messages';
import { renderToolOutput, type ToolOutput } from '../schema/tool-output';
import { blockedByBackground, callsConflict } from './call-conflicts';
import { dueToStart, needsApproval } from './plan-launches';
import { batchOpen, type CallState, type TurnState } from './turn-state';

/**
 * Background calls: a call whose policy says `background` is set aside when its first attempt
 * starts. Its place in the batch gets the tool result below at once (so the transcript pairs every
 * call with one result, for every provider), and its true output is delivered later as a user
 * message, one text part per call, at a model-request boundary.
 */

/** The tool result a background call gets in its batch: true when written, and says what follows. */
export function placeholderOutput(toolCallId: string, toolName: string): ToolOutput {
  return {
    status: 'ok',
    content: `${toolName} is running in the background as call ${toolCallId}; its output will be delivered in a later message when it finishes.`,
    attempts: 0,
  };
}

/** The output in a call's place in its batch: the placeholder for a background call. */
export function batchOutputOf(call: CallState): ToolOutput | undefined {
  return call.backgrounded ? placeholderOutput(call.call.toolCallId, call.call.toolName) : call.final;
}

export interface Delivery {
  toolCallId: string;
  toolName: string;
  output: ToolOutput;
}

/** What the model reads of one delivered output: which call, how it ended, its content. */
export function deliveryPart(delivery: Delivery): TextPart {
  const { toolCallId, toolName, output } = delivery;
  const ended = output.status === 'ok' ? 'finished' : output.status === 'error' ? 'failed' : 'did not finish';
  return {
    type: 'text',
    text: `Background call ${toolCallId} (${toolName}) ${ended}:\n${renderToolOutput(output)}`,
  };
}

export interface BackgroundPlan {
  starts: CallState[];
  approvals: CallState[];
  nextRetryAt?: number;
  running: number;
}

/**
 * What the set-aside calls need now: retries that are due and calls approved or to run again after
 * a lost host start (unless a running call they conflict with holds them); those waiting for a
 * person are listed. After a halt, or once a call is being stopped, nothing starts again.
 */
export function planBackground(
  state: TurnState,
  now: number,
  runningInBatch: readonly CallState[],
): BackgroundPlan {
  const plan: BackgroundPlan = { starts: [], approvals: [], running: 0 };
  // A conflicting call later in the list waits for one started now.
  const starting = new Set<CallState>();
  for (const call of state.background) {
    if (call.phase === 'running') plan.running += 1;
    if (call.phase === 'done' || call.phase === 'running' || state.halt || call.stopRequested) continue;
    if (needsApproval(call)) {
      plan.approvals.push(call);
      continue;
    }
    if (!dueToStart(call, now)) {
      if (call.retryAt !== undefined)
        plan.nextRetryAt = Math.min(plan.nextRetryAt ?? Number.POSITIVE_INFINITY, call.retryAt);
      continue;
    }
    const blocked =
      blockedByBackground(call, state.background, starting) ||
      runningInBatch.some((c) => c !== call && callsConflict(call.call.policy, c.call.policy));
    if (!blocked) {
      plan.starts.push(call);
      starting.add(call);
    }
  }
  return plan;
}

/**
 * The turn waits only for background calls: no batch open, no request in flight, and the model
 * done (or the turn halting) while some are still out.
 */
export function awaitingBackground(state: Readonly<TurnState>): boolean {
  return (
    state.background.length > 0 &&
    !state.modelInFlight &&
    !batchOpen(state as TurnState) &&
    (state.modelDone || state.halt !== undefined)
  );
}

/** Outputs ready to deliver: decided, in launch order. */
export function deliverable(state: TurnState): CallState[] {
  return state.background.filter((c) => c.phase === 'done' && c.final !== undefined);
}

/** A set-aside call by id (its batch may be long closed). */
export function backgroundCall(state: TurnState, toolCallId: string): CallState | undefined {
  for (const call of state.background) if (call.call.toolCallId === toolCallId) return call;
  return undefined;
}
