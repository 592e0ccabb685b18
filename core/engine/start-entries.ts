import type { JournalEntry } from '../schema/journal-entry';
import { normalizeInput, type TurnInput, type UserMessage } from '../schema/messages';
import { type TurnConfigInput, turnConfigSchema } from '../schema/turn-config';
import { engineRevision } from './engine-revision';
import type { ForkPoint } from './fork-turn';

export interface TurnStart {
  turnId: string;
  input: TurnInput;
  config?: TurnConfigInput;
  now: number;
  /** The rules to run under: the current ones unless a host replays a turn begun under older ones. */
  revision?: number;
  /**
   * A fork of another turn (see `forkPrefix`): its record up to the fork point is this turn's
   * before its own, and `message`, when given, is the user's next word (recorded as a steer).
   */
  fork?: {
    from: string;
    point: ForkPoint;
    events: Extract<JournalEntry, { type: 'turn.forked' }>['events'];
    message?: UserMessage;
  };
}

/** A turn's first entries: turn.started, turn.opened, and a fork's record. */
export function startEntries({
  turnId,
  input,
  config,
  now,
  revision = engineRevision,
  fork,
}: TurnStart): JournalEntry[] {
  const entries: JournalEntry[] = [
    { type: 'turn.started', turnId, input: normalizeInput(input), revision },
    { type: 'turn.opened', at: now, config: turnConfigSchema.parse(config ?? {}) },
  ];
  if (!fork) return entries;
  const { from, point, events, message } = fork;
  entries.push({ type: 'turn.forked', from, point, events, ...(message ? { message } : {}) });
  return entries;
}
