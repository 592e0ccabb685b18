import { z } from 'zod';
import { quoted } from '../schema/format-issues';
import type { JournalEntry, TranscriptEvent } from '../schema/journal-entry';
import type { ToolOutput } from '../schema/tool-output';
import { zeroUsage } from '../schema/usage';
import { callOf, decide } from './apply-call-entries';
import { withForkedEvents } from './messages-from-events';
import type { TurnState } from './turn-state';

/**
 * Where a fork starts from a past turn: after response N (its calls' outputs included; the fork's
 * first request is response N + 1), or before call K (its response and the outputs of the calls
 * before it in that response; K and the calls after it run in the fork).
 */
export const forkPointSchema = z.union([
  z.object({ afterResponse: z.number().int().nonnegative() }).strict(),
  z.object({ beforeCall: z.string().min(1) }).strict(),
]);
export type ForkPoint = z.infer<typeof forkPointSchema>;

/** What a fork changes of the record it starts from: outputs of calls before the fork point, by call id. */
export interface ForkEdits {
  outputs?: Readonly<Record<string, ToolOutput>>;
}

/**
 * The transcript events a fork starts with: the source turn's, from its first response up to the
 * fork point, with edited outputs in place of the recorded ones. Nothing before the point runs
 * again (no tool, no model request): the fork's engine takes these as they were recorded, and its
 * own calls, under its own turn id, get idempotency keys of their own. Throws what is wrong with
 * the point (past the turn's end, inside a response still streaming, a call it does not have) or
 * with an edit (a call that is not before the point).
 */
export function forkPrefix(
  events: readonly TranscriptEvent[],
  at: ForkPoint,
  edits: ForkEdits = {},
): TranscriptEvent[] {
  // A fork of a fork: the record it began from is its own, in its `turn.forked` event's place.
  const body = withForkedEvents(events).filter(
    (e) => e.type !== 'turn.started' && e.type !== 'turn.finished',
  );
  const end =
    'afterResponse' in at ? afterResponseEnd(body, at.afterResponse) : beforeCallEnd(body, at.beforeCall);
  const prefix = body.slice(0, end);
  for (const event of prefix)
    if (event.type === 'model.responded' && event.calls.some((c) => c.policy.background))
      throw new Error('a fork of a turn that ran calls in the background is not supported yet');
  const edited = new Set(Object.keys(edits.outputs ?? {}));
  const forked = prefix.map((event) => {
    if (event.type !== 'tool.completed' || !edited.has(event.toolCallId)) return event;
    edited.delete(event.toolCallId);
    return { ...event, output: edits.outputs?.[event.toolCallId] as ToolOutput };
  });
  if (edited.size > 0)
    throw new Error(
      `cannot edit the output of ${[...edited].map((id) => quoted(id)).join(', ')}: only calls recorded before the fork point have outputs to edit`,
    );
  return forked;
}

/** Where response N's batch ends: its response and every output of its calls. */
function afterResponseEnd(events: readonly TranscriptEvent[], n: number): number {
  const at = events.findIndex((e) => e.type === 'model.responded' && e.responseIndex === n);
  if (at < 0) throw new Error(`the turn has no response ${n} to fork after`);
  const responded = events[at] as Extract<TranscriptEvent, { type: 'model.responded' }>;
  let end = at + 1;
  for (const call of responded.calls) {
    const next = events[end];
    if (next?.type !== 'tool.completed' || next.toolCallId !== call.toolCallId)
      throw new Error(
        `response ${n}'s call ${quoted(call.toolCallId)} has no recorded output: fork before it instead`,
      );
    end += 1;
  }
  return end;
}

/** Where the record stands just before call K: its response, and the outputs of the calls before it. */
function beforeCallEnd(events: readonly TranscriptEvent[], toolCallId: string): number {
  const at = events.findIndex(
    (e) => e.type === 'model.responded' && e.calls.some((c) => c.toolCallId === toolCallId),
  );
  if (at < 0) throw new Error(`the turn has no call ${quoted(toolCallId)} to fork before`);
  const responded = events[at] as Extract<TranscriptEvent, { type: 'model.responded' }>;
  return at + 1 + responded.calls.findIndex((c) => c.toolCallId === toolCallId);
}

/**
 * The reducer's part for `turn.forked`: the source's events as this turn's own record. A recorded
 * output is the call's output as it was (no attempt of it is in this turn: it counts as 0 here);
 * the calls after the fork point are pending, and run in this turn.
 */
export function applyForked(
  state: TurnState,
  entry: Extract<JournalEntry, { type: 'turn.forked' }>,
  apply: (state: TurnState, entry: JournalEntry) => TurnState,
): TurnState {
  let forked = state;
  for (const event of entry.events) {
    if (event.type === 'tool.completed') decide(callOf(forked, event.toolCallId), { ...event.output });
    forked = apply(forked, event);
  }
  // The fork's own work is what its budget and usage count: the source's responses are not spent again.
  forked.spent = { ...forked.spent, modelResponses: 0, toolCalls: 0, usage: zeroUsage };
  // After the record, and after the outputs of a batch the fork point cut: a steer waits for those.
  // After the source's final answer too: the model is asked again, with it.
  if (entry.message) {
    forked.pendingSteers = [{ messageId: `${forked.turnId}/fork`, message: entry.message }];
    forked.modelDone = false;
  }
  // The fork's answers are its own to check; and the provider's stored copy of the conversation
  // (a stateful continuation's receipt) is the source's, without the fork's edits: it sends all.
  delete forked.outputRejections;
  delete forked.receipt;
  return forked;
}
