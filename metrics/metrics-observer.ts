import type { ToolPostEvent, TurnObserver } from '../core/hooks/turn-observer';
import type { JournalEntry } from '../core/schema/journal-entry';
import type { TurnGaugeSource, TurnMetricsRecorder } from './turn-metrics-recorder';

/** The tool label of calls to tools the host does not have: the model names them, so they are unbounded. */
export const unknownToolLabel = '(unknown)';

interface OpenTurn {
  /** When this process saw the turn start (absent for a turn it resumed). */
  startedAt?: number;
  /** Calls waiting for a person's decision. */
  waiting: Set<string>;
}

export type MetricsObserver = Required<Pick<TurnObserver, 'onToolPost' | 'onEntry' | 'entryTypes'>> &
  TurnGaugeSource;

/**
 * The entries the observer needs: the turn-level ones. It gets none of a call's own four
 * (accepted, attempt started, attempt finished, completed), which are most of a turn's entries.
 * A turn resumed here is still seen at once: every way a resume goes on writes one of these in the
 * append that follows it (a lost attempt, a model request or response, an approval, the end) —
 * except a turn that waits for an approval, which was seen only at the decision before as well.
 */
export const metricsEntryTypes: ReadonlySet<JournalEntry['type']> = new Set<JournalEntry['type']>([
  'turn.started',
  'turn.opened',
  'turn.halted',
  'turn.finished',
  'model.requested',
  'model.responded',
  'model.attempt_failed',
  'tool.attempt_lost',
  'tool.approval_requested',
  'tool.approval_decided',
]);

/**
 * Tool attempts from `onToolPost` (on every host: it fires wherever an attempt runs), and turns
 * from `onEntry`, which only the in-process executor calls: a Temporal worker counts turns
 * through the workflow's metrics sink instead, so nothing is counted twice.
 */
export function metricsObserver({ metrics }: { metrics: TurnMetricsRecorder }): MetricsObserver {
  const open = new Map<string, OpenTurn>();
  // Entries come in runs of one turn's: most need no lookup at all.
  let lastSeen: string | undefined;
  const turnOf = (turnId: string): OpenTurn => {
    let turn = open.get(turnId);
    if (!turn) {
      // A turn resumed from its journal: open, but its start was not seen here.
      turn = { waiting: new Set() };
      open.set(turnId, turn);
    }
    lastSeen = turnId;
    return turn;
  };
  return {
    entryTypes: metricsEntryTypes,
    onToolPost(event: ToolPostEvent) {
      const { result } = event;
      // The model names the tool: a name this host does not have must not become a series.
      const unknown = result.status === 'error' && result.errorType === 'unknown-tool';
      metrics.recordToolAttempt({
        tool: unknown ? unknownToolLabel : event.toolName,
        outcome: result.status,
        durationMs: event.durationMs,
      });
    },
    onEntry({ turnId, entry }: { turnId: string; entry: JournalEntry }) {
      switch (entry.type) {
        case 'turn.started':
          open.set(turnId, { startedAt: Date.now(), waiting: new Set() });
          lastSeen = turnId;
          metrics.recordTurnStarted();
          return;
        case 'turn.finished': {
          const startedAt = open.get(turnId)?.startedAt;
          open.delete(turnId);
          if (lastSeen === turnId) lastSeen = undefined;
          metrics.recordTurnEnded({
            status: entry.status,
            ...(startedAt !== undefined ? { durationMs: Date.now() - startedAt } : {}),
          });
          return;
        }
        case 'tool.approval_requested':
          turnOf(turnId).waiting.add(entry.toolCallId);
          return;
        case 'tool.approval_decided':
          turnOf(turnId).waiting.delete(entry.toolCallId);
          return;
        default:
          if (turnId !== lastSeen) turnOf(turnId);
      }
    },
    openTurns: () => open.size,
    turnsWaitingForApproval: () => {
      let waiting = 0;
      for (const turn of open.values()) if (turn.waiting.size > 0) waiting += 1;
      return waiting;
    },
  };
}
