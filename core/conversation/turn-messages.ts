import { messagesFromEvents } from '../engine/messages-from-events';
import type { TurnResult } from '../engine/turn-outcome';
import type { Message } from '../schema/messages';

/**
 * An ended turn's messages as a later turn of its conversation sends them: its input first, then
 * what it added, rebuilt from its transcript events with the engine's notices put back by call id
 * (as the Temporal host rebuilds them from a turn's packed result).
 */
export function turnMessages({ events, outputs }: Pick<TurnResult, 'events' | 'outputs'>): Message[] {
  const notices: Record<string, string> = {};
  for (const output of outputs) if (output.notice) notices[output.toolCallId] = output.notice;
  return messagesFromEvents(events, notices);
}
