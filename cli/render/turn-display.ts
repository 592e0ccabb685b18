import {
  applyEntry,
  type CallPhase,
  type CallState,
  type HaltReason,
  needsApproval,
  type SubAgentApproval,
  type ToolOutputStatus,
  type TurnState,
  type TurnStateView,
  type TurnStatus,
  turnStateView,
  type Usage,
} from '../../core';
import { type DecisionDisplay, decisionFromOutput, decisionOf } from './decision-text';
import type { TurnEvent } from './turn-event';

/** One tool call as the CLI shows it: kept after its batch is over, so every wave stays on screen. */
export interface CallDisplay {
  toolCallId: string;
  toolName: string;
  input: unknown;
  responseIndex: number;
  wave: number;
  phase: CallPhase;
  /** The attempt running or last run (0 before the first). */
  attempt: number;
  startedAt?: number;
  /** From the first attempt's start to the last one's finish, once it finished. */
  durationMs?: number;
  status?: ToolOutputStatus;
  errorType?: string;
  /** The output's content (the error text for errors). */
  content?: unknown;
  approvalRequested?: boolean;
  /** Who decided and what: from its decision's entry, else from what its output says of it. */
  decision?: DecisionDisplay;
  /** The call could not run at all (unknown tool, invalid arguments). */
  rejection?: string;
  /** It runs in the background: its result in the batch is a placeholder, its output comes later. */
  background?: boolean;
}

export interface ResponseDisplay {
  index: number;
  text: string;
  reasoning: string;
  /** Only streamed text has arrived so far (or nothing). */
  streaming: boolean;
  callIds: string[];
  usage?: Usage;
  failures: { attempt: number; error: string; retryAt?: number }[];
  /** Its answer did not match the turn's output schema, and was asked again. */
  rejected?: { answer: number; issues: string };
}

/** Everything the renderers draw, folded from the turn's events. */
export interface TurnDisplay {
  turnId: string;
  /** The engine's own state, rebuilt from the same entries: usage, budget and waves as the turn sees them. */
  state?: TurnState;
  responses: ResponseDisplay[];
  calls: Map<string, CallDisplay>;
  callOrder: string[];
  halted?: { reason: HaltReason; detail: string };
  /** `output`: a turn with an output schema that completed, its checked answer. */
  finished?: { status: TurnStatus; reason?: string; output?: unknown };
  /** The latest time an entry recorded (entries time calls, not responses or the end). */
  lastAt: number;
  /** When the turn ended, if the watcher learned it (its workflow's close): its clock stops there. */
  endedAt?: number;
  /**
   * Some entries are missing: older ones the workflow no longer keeps (a very long turn), or the
   * execution records a finished turn's result leaves out. Usage and budget are then not shown
   * from the display (they would be wrong), only from the turn itself.
   */
  incomplete: boolean;
  /** What its sub-agents wait on for a person now, and which of those the last event added. */
  subAgentWaits?: { all: SubAgentApproval[]; added: SubAgentApproval[] };
}

export function emptyTurnDisplay({
  turnId,
  transcriptOnly = false,
}: {
  turnId: string;
  /** Only transcript events will come (a finished turn's result): no attempts, no timings. */
  transcriptOnly?: boolean;
}): TurnDisplay {
  return { turnId, responses: [], calls: new Map(), callOrder: [], incomplete: transcriptOnly, lastAt: 0 };
}

/** Folds one event into the display (mutating it, as the engine's reducer does its state). */
export function applyTurnEvent({ display, event }: { display: TurnDisplay; event: TurnEvent }): TurnDisplay {
  if (event.kind === 'text-delta') {
    const response = responseAt({ display, index: event.responseIndex });
    if (response.streaming) response.text += event.text;
    return display;
  }
  if (event.kind === 'sub-agent-approvals') {
    const key = (a: SubAgentApproval) => `${a.turnId} ${a.toolCallId}`;
    const before = new Set((display.subAgentWaits?.all ?? []).map(key));
    const added = event.approvals.filter((a) => !before.has(key(a)));
    display.subAgentWaits = { all: event.approvals, added };
    return display;
  }
  if (event.kind === 'text-restart') {
    const response = responseAt({ display, index: event.responseIndex });
    if (response.streaming) response.text = '';
    return display;
  }
  const { entry } = event;
  if ('at' in entry && entry.at !== undefined) display.lastAt = Math.max(display.lastAt, entry.at);
  if (entry.type !== 'turn.started' && display.state === undefined) display.incomplete = true;
  if (entry.type === 'turn.started' || display.state !== undefined) {
    display.state = applyEntry(display.state, entry);
  }
  switch (entry.type) {
    case 'model.requested':
      responseAt({ display, index: entry.responseIndex });
      break;
    case 'model.attempt_failed':
      responseAt({ display, index: entry.responseIndex }).failures.push({
        attempt: entry.attempt,
        error: entry.error,
        ...(entry.retryAt !== undefined && { retryAt: entry.retryAt }),
      });
      break;
    case 'model.responded': {
      const response = responseAt({ display, index: entry.responseIndex });
      response.streaming = false;
      response.text = entry.message.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
      response.reasoning = entry.message.content
        .flatMap((p) => (p.type === 'reasoning' ? [p.text] : []))
        .join('');
      response.usage = entry.usage;
      for (const call of entry.calls) noteCall({ display, responseIndex: entry.responseIndex, call });
      break;
    }
    case 'model.call_accepted':
      noteCall({ display, responseIndex: entry.responseIndex, call: entry.call });
      break;
    case 'tool.approval_requested': {
      const call = display.calls.get(entry.toolCallId);
      if (call) call.approvalRequested = true;
      break;
    }
    case 'tool.approval_decided': {
      const call = display.calls.get(entry.toolCallId);
      if (call) {
        call.approvalRequested = false;
        call.decision = decisionOf(entry);
      }
      break;
    }
    case 'background.delivered':
      for (const { toolCallId, output } of entry.deliveries) {
        const call = display.calls.get(toolCallId);
        if (!call) continue;
        call.phase = 'done';
        call.status = output.status;
        call.content = output.content;
        if (output.errorType !== undefined) call.errorType = output.errorType;
      }
      break;
    case 'tool.completed': {
      const call = display.calls.get(entry.toolCallId);
      // A background call's placeholder: it is still running.
      if (call?.background && call.attempt > 0) break;
      if (call) {
        call.phase = 'done';
        call.status = entry.output.status;
        call.content = entry.output.content;
        if (entry.output.errorType !== undefined) call.errorType = entry.output.errorType;
        // A finished turn's result has its outputs, not its decisions: an output names its approver.
        call.decision ??= decisionFromOutput(entry.output);
      }
      break;
    }
    case 'output.rejected': {
      const answer = display.responses.filter((r) => r.rejected).length + 1;
      responseAt({ display, index: entry.responseIndex }).rejected = { answer, issues: entry.issues };
      break;
    }
    case 'turn.halted':
      display.halted = { reason: entry.reason, detail: entry.detail };
      break;
    case 'turn.finished':
      display.finished = {
        status: entry.status,
        ...(entry.reason !== undefined && { reason: entry.reason }),
        ...(entry.output !== undefined && { output: entry.output }),
      };
      break;
    default:
      break;
  }
  syncBatch({ display });
  return display;
}

/** Usage, what was spent and what is left of the budget, as the turn's own `state()` query gives them. */
export function displayStateView({
  display,
  now,
}: {
  display: TurnDisplay;
  now: number;
}): TurnStateView | undefined {
  // Before `turn.opened` the turn has no start to count from.
  if (display.state === undefined || display.incomplete || display.state.spent.startedAt === 0)
    return undefined;
  const end = display.finished ? Math.max(display.lastAt, display.endedAt ?? 0) : now;
  return turnStateView(display.state, end);
}

function responseAt({ display, index }: { display: TurnDisplay; index: number }): ResponseDisplay {
  let response = display.responses.find((r) => r.index === index);
  if (!response) {
    response = { index, text: '', reasoning: '', streaming: true, callIds: [], failures: [] };
    display.responses.push(response);
    display.responses.sort((a, b) => a.index - b.index);
  }
  return response;
}

function noteCall({
  display,
  responseIndex,
  call,
}: {
  display: TurnDisplay;
  responseIndex: number;
  call: CallState['call'];
}): void {
  if (display.calls.has(call.toolCallId)) return;
  display.calls.set(call.toolCallId, {
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    input: call.input,
    responseIndex,
    wave: 0,
    phase: 'pending',
    attempt: 0,
    ...(call.rejection && { rejection: call.rejection.message }),
    ...(call.policy.background && { background: true }),
  });
  display.callOrder.push(call.toolCallId);
  const response = responseAt({ display, index: responseIndex });
  if (!response.callIds.includes(call.toolCallId)) response.callIds.push(call.toolCallId);
}

/** Copies what the engine knows of the current batch's calls: waves, phases, attempts, timings. */
function syncBatch({ display }: { display: TurnDisplay }): void {
  for (const c of display.state?.batch?.calls ?? []) {
    const shown = display.calls.get(c.call.toolCallId);
    if (!shown) continue;
    shown.wave = c.wave;
    // As the state query and the approve update see it: what an operator may decide on now.
    if (shown.phase !== 'done') shown.phase = needsApproval(c) ? 'awaiting-approval' : c.phase;
    const first = c.attempts[0];
    const last = c.attempts.at(-1);
    if (last) shown.attempt = last.attempt;
    if (first) shown.startedAt = first.startedAt;
    if (first && last?.finishedAt !== undefined) shown.durationMs = last.finishedAt - first.startedAt;
    if (c.final && shown.status === undefined) {
      shown.status = c.final.status;
      shown.content = c.final.content;
      if (c.final.errorType !== undefined) shown.errorType = c.final.errorType;
    }
  }
}
