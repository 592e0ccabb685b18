import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import { packJson } from '../../contract/packed-json';
import { turnStatusKey, waitingForApprovalKey } from '../../contract/search-attributes';
import {
  packedResultQuery,
  resultInlineMaxChars,
  type ToolSessions,
  type TurnWorkflowResult,
} from '../../contract/turn-workflow';
import { steeredMessageIds } from '../../core';
import { reportTurnEnded } from './turn-metrics';
import type { TurnRecord } from './turn-record';

/** The turn's result at its end: its outcome, the transcript packed once, and what its conversation carries on. */
export function finish(
  turn: TurnRecord,
  listed: SearchAttributeUpdatePair[],
  sessions: ToolSessions | undefined,
): TurnWorkflowResult {
  const outcome = turn.engine.outcome();
  reportTurnEnded({ status: outcome.status });
  upsertSearchAttributes([
    ...listed,
    { key: turnStatusKey, value: outcome.status },
    { key: waitingForApprovalKey, value: false },
  ]);
  const { outputs: _outputs, transcript: _transcript, ...summary } = outcome;
  // Each output once: the transcript is rebuilt from the events (plus the engine's notices).
  const notices: Record<string, string> = {};
  for (const output of outcome.outputs) if (output.notice) notices[output.toolCallId] = output.notice;
  const packed = packJson({ events: turn.events, notices });
  // Which steers the turn took: its conversation gives the others to its next turn.
  const steered = steeredMessageIds(turn.events);
  const told = {
    ...summary,
    ...(steered.length > 0 ? { steered } : {}),
    // Its conversation's next turn calls the same session holder.
    ...(sessions ? { sessions } : {}),
  };
  if (packed.length <= resultInlineMaxChars) return { ...told, packed };
  // Too long for the result's one payload: readers page through it by query, which a worker
  // answers for a closed workflow too (it replays the history to here).
  setHandler(packedResultQuery, (offset) => packed.slice(offset, offset + resultInlineMaxChars));
  return { ...told, packed: '', packedLength: packed.length };
}
