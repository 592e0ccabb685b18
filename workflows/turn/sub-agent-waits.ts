import { CancellationScope, getExternalWorkflowHandle, log, patched, setHandler } from '@temporalio/workflow';
import {
  maxReportedApprovals,
  type SubAgentApprovals,
  subAgentApprovalsSchema,
  subAgentApprovalsSignal,
  type TurnWorkflowInput,
} from '../../contract/turn-workflow';
import {
  type ApprovalRequest,
  approvalRequest,
  type CallState,
  needsApproval,
  type SubAgentApproval,
  subAgentTurnId,
  type TurnState,
} from '../../core';

/**
 * A turn's calls that wait for a person, told up the chain of sub-agents (`agentTool`), so that a
 * parent shows its sub-agents' approvals as its own (state, its waiting search attribute, so the
 * CLI and the dashboard) and a decision sent to the parent reaches them (the client routes it).
 *
 * Down: each sub-agent reports to its parent (a signal, the whole list each time: a report the
 * parent misses is mended by the next) when the list changes, its own waiting calls and those its
 * sub-agents reported. Up: a parent keeps each of its calls' latest report, and shows a report only
 * while its call runs (a finished call's sub-agent waits for nothing more).
 */
export class SubAgentWaits {
  private readonly reports = new Map<string, SubAgentApprovals>();
  /** What the parent was last told (the waiting calls' places), to tell it only of a change. */
  private told = '[]';
  private due = false;

  constructor(
    private readonly input: Pick<TurnWorkflowInput, 'turnId' | 'parent'>,
    private readonly view: () => Readonly<TurnState>,
    /** A report came in: the turn's waiting attribute may change. */
    private readonly onReport: () => void,
  ) {
    setHandler(subAgentApprovalsSignal, (raw) => {
      // Runs begun before reports were taken ignore them, as they did (a replay meets no new command).
      if (!patched(reportsPatch)) return;
      // A signal cannot be refused: one that does not parse, or that does not come from the turn its
      // call runs (anyone who reaches the frontend can signal), is logged and dropped.
      const report = subAgentApprovalsSchema.safeParse(raw);
      if (!report.success || report.data.turnId !== subAgentTurnId(input.turnId, report.data.toolCallId)) {
        log.warn(`turn ${input.turnId}: a sub-agent's approvals report that is not one was dropped`);
        return;
      }
      const { toolCallId, at } = report.data;
      const held = this.reports.get(toolCallId);
      // Signals may arrive out of order: a report older than the one held says nothing new.
      if (held?.at !== undefined && at !== undefined && at < held.at) return;
      if (runningCall(this.view(), toolCallId)) this.reports.set(toolCallId, report.data);
      else this.reports.delete(toolCallId);
      this.onReport();
      this.changed();
    });
  }

  /** The waiting calls of this turn's running sub-agents, as its state shows them. */
  list(): SubAgentApproval[] {
    const view = this.view();
    const listed: SubAgentApproval[] = [];
    for (const [agentCallId, report] of this.reports) {
      if (!runningCall(view, agentCallId)) continue;
      for (const approval of report.approvals) listed.push({ ...approval, agentCallId } as SubAgentApproval);
    }
    return listed;
  }

  /** Whether a running sub-agent waits for a person. */
  waiting(): boolean {
    if (this.reports.size === 0) return false;
    return this.list().length > 0;
  }

  /**
   * Something may have changed what waits: the parent is told once this activation's code has run
   * (a decision and the wait after it come in one activation: the parent is told the outcome once).
   */
  changed(): void {
    if (!this.input.parent || this.due) return;
    this.due = true;
    void Promise.resolve().then(() => this.tell());
  }

  /** Tells the parent now if the list changed (at the turn's end: nothing waits any more). */
  tell(): void {
    this.due = false;
    const { parent, turnId } = this.input;
    if (!parent) return;
    const view = this.view();
    const own = (view.batch?.calls ?? []).filter((call) => !view.finished && needsApproval(call));
    const approvals = [
      ...own.map((call) => reported({ ...approvalRequest(call), turnId })),
      ...(view.finished ? [] : this.list().map(({ agentCallId: _call, ...approval }) => approval)),
    ].slice(0, maxReportedApprovals);
    const told = JSON.stringify(approvals.map((a) => [a.turnId, a.toolCallId]));
    if (told === this.told) return;
    this.told = told;
    const report: SubAgentApprovals = { toolCallId: parent.toolCallId, turnId, at: Date.now(), approvals };
    // Told also while this turn is being cancelled; a parent that ended already is not told.
    void CancellationScope.nonCancellable(() =>
      getExternalWorkflowHandle(parent.turnId).signal(subAgentApprovalsSignal, report),
    ).catch(() => {});
  }
}

/** Marks the runs that take sub-agents' reports (older runs ignore them: see the handler). */
const reportsPatch = 'durable-turns-sub-agent-reports';

/** Arguments larger than this (JSON characters) are reported as their start (`inputCut`). */
const reportedInputChars = 4_096;

/**
 * A waiting call as its parent is told of it: no schema (an edit is checked where the call waits),
 * and large arguments cut, so that reports, resent whole at each change, stay small.
 */
function reported(request: ApprovalRequest & { turnId: string }): SubAgentApprovals['approvals'][number] {
  const { inputSchema: _schema, ...rest } = request;
  const json = JSON.stringify(request.input ?? null);
  if (json.length <= reportedInputChars) return rest;
  return { ...rest, input: `${json.slice(0, reportedInputChars)}…`, inputCut: true };
}

function runningCall(view: Readonly<TurnState>, toolCallId: string): boolean {
  const running = (calls: readonly CallState[] | undefined) =>
    calls?.some((call) => call.call.toolCallId === toolCallId && !call.final) ?? false;
  return running(view.batch?.calls) || running(view.background);
}
