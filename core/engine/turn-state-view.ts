import type { ApprovalGrant } from '../schema/approval-grant';
import type { DecisionVia } from '../schema/decision-via';
import type { ToolOutputStatus } from '../schema/tool-output';
import type { TurnStatus } from '../schema/turn-status';
import { totalTokens, type Usage } from '../schema/usage';
import type { SubAgentApproval } from '../tools/sub-agents';
import { approvalRequest } from './approvals';
import { awaitingBackground } from './background-calls';
import type { ApprovalRequest } from './engine-types';
import { needsApproval } from './plan-launches';
import type { CallState, TurnState } from './turn-state';

export interface CallDecision {
  approved: boolean;
  reason?: string;
  by?: string;
  via?: DecisionVia;
  edited?: boolean;
  grantId?: string;
}

export interface CallView {
  toolCallId: string;
  toolName: string;
  wave: number;
  phase: 'pending' | 'awaiting-approval' | 'running' | 'retry-wait' | 'done';
  attempts: number;
  firstStartedAt?: number;
  lastFinishedAt?: number;
  status?: ToolOutputStatus;
  /** Set while the call waits for a person: what to decide on. */
  approval?: ApprovalRequest;
  /** The decision taken on it: who, through what, whether the arguments were edited, or the grant that allowed it. */
  decision?: CallDecision;
  /** It runs in the background: its batch has its placeholder; `status` is set once its output is decided. */
  background?: boolean;
}

/** A turn as operators see it: what it is doing now, each call of the current batch, what is left. */
export interface TurnStateView {
  turnId: string;
  /** `background`: the model is done, and the turn waits for calls running in the background. */
  phase: 'model' | 'tools' | 'awaiting-approval' | 'background' | 'finished';
  status: TurnStatus | 'running';
  reason?: string;
  responseIndex: number;
  currentWave?: number;
  calls: CallView[];
  /** Background calls whose output is not delivered yet, from any batch, in launch order. */
  background: CallView[];
  usage: Usage;
  /** When the turn started (epoch ms): `spent.wallTimeMs` counts from here. */
  startedAt: number;
  spent: { modelResponses: number; toolCalls: number; tokens: number; wallTimeMs: number };
  budgetLeft: { modelResponses?: number; toolCalls?: number; tokens?: number; wallTimeMs?: number };
  outputs: number;
  /** The provider's id for the last response that arrived whole: the receipt that it was accepted. */
  receipt?: { responseIndex: number; responseId: string };
  /** The grants in force ("always allow"; see `ApprovalGrant`): what runs without asking, who allowed it. */
  grants?: ApprovalGrant[];
  /** How its approvals are taken: only signed (`approvals.signed`), and how long a call waits. */
  approvals?: { signed?: boolean; timeoutMs?: number };
  /**
   * Calls of its running sub-agents (any depth) that wait for a person, as they reported them
   * (the host's; absent when none waits): each is answered on this turn too (see `SubAgentApproval`).
   */
  subAgentApprovals?: SubAgentApproval[];
}

export function turnStateView(state: TurnState, now: number): TurnStateView {
  const viewOf = (c: CallState): CallView => ({
    toolCallId: c.call.toolCallId,
    toolName: c.call.toolName,
    wave: c.wave,
    phase: needsApproval(c) ? 'awaiting-approval' : c.phase,
    attempts: c.attempts.length,
    ...(c.attempts[0] ? { firstStartedAt: c.attempts[0].startedAt } : {}),
    ...(c.attempts.at(-1)?.finishedAt !== undefined ? { lastFinishedAt: c.attempts.at(-1)?.finishedAt } : {}),
    ...(c.final ? { status: c.final.status } : {}),
    ...(needsApproval(c) ? { approval: approvalRequest(c) } : {}),
    ...(c.approval ? { decision: decisionView(c.approval) } : {}),
    ...(c.backgrounded ? { background: true } : {}),
  });
  const calls = (state.batch?.calls ?? []).map(viewOf);
  // What the turn is doing now is about its batch: background calls run beside it.
  const open = calls.filter((c) => c.phase !== 'done' && !c.background);
  const tokens = totalTokens(state.spent.usage);
  const wallTimeMs = Math.max(0, now - state.spent.startedAt);
  const budget = state.config.budget;
  const left = (max: number | undefined, used: number) =>
    max === undefined ? undefined : Math.max(0, max - used);
  const budgetLeft = Object.fromEntries(
    Object.entries({
      modelResponses: left(budget.maxModelResponses, state.spent.modelResponses),
      toolCalls: left(budget.maxToolCalls, state.spent.toolCalls),
      tokens: left(budget.maxTokens, tokens),
      wallTimeMs: left(budget.maxWallTimeMs, wallTimeMs),
    }).filter(([, v]) => v !== undefined),
  );
  return {
    turnId: state.turnId,
    phase: state.finished
      ? 'finished'
      : open.length === 0
        ? awaitingBackground(state)
          ? 'background'
          : 'model'
        : open.some((c) => c.phase === 'awaiting-approval') && !open.some((c) => c.phase === 'running')
          ? 'awaiting-approval'
          : 'tools',
    status: state.finished?.status ?? 'running',
    ...(state.finished?.reason ? { reason: state.finished.reason } : {}),
    responseIndex: state.responseIndex,
    ...(open.length > 0 ? { currentWave: Math.min(...open.map((c) => c.wave)) } : {}),
    calls,
    background: state.background.map(viewOf),
    usage: state.spent.usage,
    startedAt: state.spent.startedAt,
    spent: {
      modelResponses: state.spent.modelResponses,
      toolCalls: state.spent.toolCalls,
      tokens,
      wallTimeMs,
    },
    budgetLeft,
    outputs: state.outputs.length,
    ...(state.receipt
      ? { receipt: { responseIndex: state.receipt.responseIndex, responseId: state.receipt.responseId } }
      : {}),
    ...(state.grants ? { grants: state.grants } : {}),
    ...approvalsView(state.config.approvals),
  };
}

function approvalsView({
  signed,
  timeoutMs,
}: TurnState['config']['approvals']): Pick<TurnStateView, 'approvals'> {
  if (signed === undefined && timeoutMs === undefined) return {};
  return {
    approvals: { ...(signed !== undefined && { signed }), ...(timeoutMs !== undefined && { timeoutMs }) },
  };
}

/**
 * The view with a running turn's wall time brought up to `now` (a reader's clock). A workflow
 * answers a query in workflow time, which stands still between its tasks: a turn waiting an hour
 * for an approval would say it had run for as long as its last task took. Never less than the
 * view says (a reader's clock may be behind the worker's). A view from a worker that does not send
 * `startedAt` is returned as it is.
 */
export function viewAt(view: TurnStateView, now: number): TurnStateView {
  if (view.status !== 'running' || typeof view.startedAt !== 'number') return view;
  const more = Math.max(0, now - view.startedAt - view.spent.wallTimeMs);
  if (more === 0) return view;
  const { wallTimeMs: left } = view.budgetLeft;
  return {
    ...view,
    spent: { ...view.spent, wallTimeMs: view.spent.wallTimeMs + more },
    budgetLeft: { ...view.budgetLeft, ...(left !== undefined && { wallTimeMs: Math.max(0, left - more) }) },
  };
}

function decisionView({ input, ...rest }: NonNullable<CallState['approval']>): CallDecision {
  return input === undefined ? rest : { ...rest, edited: true };
}
