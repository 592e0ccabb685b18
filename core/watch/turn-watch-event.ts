import type { JournalEntry } from '../schema/journal-entry';
import type { SubAgentApproval } from '../tools/sub-agents';

/**
 * One journal entry as watchers see it. `seq` counts the turn's entries from 1, in the order they
 * were recorded, across everything that ran it (a Temporal turn's runs, an in-process turn's
 * resumes): entry N of the journal is `seq` N on either executor, so `after` means the same on both.
 */
export interface ProgressEntry {
  seq: number;
  entry: JournalEntry;
}

export type LiveChannelName = 'text' | 'reasoning';

/**
 * What `watch` yields, on Temporal (`TurnHandle.watch`) and in process (`InProcessExecutor.watch`).
 * Per response, the `delta`s of each channel add up, in order and without repeats, to the text of
 * its `model.responded` entry, and all come before it: a watcher that saw only part of the stream
 * (it joined late, or fell behind) gets a `gap` for what it missed, and at the response's end a
 * `restart` followed by the whole text as one delta. A response that never completes (the turn
 * was cancelled or failed meanwhile) just stops.
 */
export type TurnWatchEvent =
  /** A journal entry (as `ProgressEntry`), numbered across the turn's runs. */
  | ({ kind: 'entry' } & ProgressEntry)
  /** `delta` continues the channel's text of response `responseIndex` at `offset`. */
  | { kind: 'delta'; responseIndex: number; channel: LiveChannelName; offset: number; delta: string }
  /** The channel's text from `offset` for `length` units streamed while this watcher was not looking. */
  | { kind: 'gap'; responseIndex: number; channel: LiveChannelName; offset: number; length: number }
  /**
   * What this watcher was shown of the response so far no longer stands (the request was asked
   * again, or there were gaps and the final text follows whole): start the response over.
   */
  | { kind: 'restart'; responseIndex: number }
  /**
   * The calls its running sub-agents (`agentTool`) wait on for a person changed: all of them now
   * (empty: none waits any more), as `TurnStateView.subAgentApprovals` lists them. On Temporal only
   * (in process the executor's approver is asked), and only while the watch is `live`.
   */
  | { kind: 'sub-agent-approvals'; approvals: SubAgentApproval[] };
