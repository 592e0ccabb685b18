import type { JournalEntry, SubAgentApproval } from '../../core';

/**
 * What the renderers are fed: a turn's journal entries and, while a response streams, its text
 * (`TurnHandle.watch`'s live events). The whole response, once recorded, replaces the streamed text;
 * `text-restart` drops what was shown of a response that is being asked again; `sub-agent-approvals`
 * lists the calls its sub-agents wait on for a person, whenever that changes.
 */
export type TurnEvent =
  | { kind: 'entry'; seq: number; entry: JournalEntry }
  | { kind: 'text-delta'; responseIndex: number; text: string }
  | { kind: 'text-restart'; responseIndex: number }
  | { kind: 'sub-agent-approvals'; approvals: SubAgentApproval[] };
