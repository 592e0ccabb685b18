import type { ApprovalGrant } from '../schema/approval-grant';
import type { TranscriptEvent } from '../schema/journal-entry';
import type { Message } from '../schema/messages';
import type { ToolOutput } from '../schema/tool-output';
import type { TurnStatus } from '../schema/turn-status';
import type { Usage } from '../schema/usage';
import type { TurnState } from './turn-state';

export interface CallOutcome extends ToolOutput {
  toolCallId: string;
  name: string;
}

/** How a turn ended, as the executors hand it back. */
export interface TurnOutcome {
  turnId: string;
  status: TurnStatus;
  reason?: string;
  /** One per tool call of the turn, in the order they were recorded. */
  outputs: CallOutcome[];
  /** The messages the turn added (assistant responses and tool results): valid for the next request. */
  transcript: Message[];
  /** The text of the model's last response. */
  text: string;
  usage: Usage;
  modelResponses: number;
  toolCalls: number;
  /** A turn with an output schema (`OutputConfig`) that completed: its answer, parsed and checked. */
  output?: unknown;
  /** The grants in force when the turn ended: a conversation carries those of scope `conversation` on. */
  grants?: ApprovalGrant[];
  /** The grants revoked in the turn (their ids): its conversation drops those too. */
  grantsRevoked?: string[];
}

/** What every executor hands back: the outcome and the turn's transcript events, in batch order. */
export interface TurnResult extends TurnOutcome {
  events: TranscriptEvent[];
}

export function outcomeOf(state: TurnState): TurnOutcome {
  if (!state.finished) throw new Error(`turn ${state.turnId} has not finished`);
  const transcript = state.messages.slice(state.inputLength);
  const last = [...transcript].reverse().find((m) => m.role === 'assistant');
  const text =
    last && last.role === 'assistant'
      ? last.content
          .filter((p) => p.type === 'text')
          .map((p) => p.text)
          .join('')
      : '';
  return {
    turnId: state.turnId,
    status: state.finished.status,
    ...(state.finished.reason ? { reason: state.finished.reason } : {}),
    outputs: state.outputs.map((o) => ({ toolCallId: o.toolCallId, name: o.toolName, ...o.output })),
    transcript,
    text,
    usage: state.spent.usage,
    modelResponses: state.spent.modelResponses,
    toolCalls: state.spent.toolCalls,
    ...(state.finished.output !== undefined ? { output: state.finished.output } : {}),
    ...(state.grants ? { grants: state.grants } : {}),
    ...(state.grantsRevoked ? { grantsRevoked: state.grantsRevoked } : {}),
  };
}
