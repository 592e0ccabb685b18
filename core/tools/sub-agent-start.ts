import type { TurnStateView } from '../engine/turn-state-view';
import type { ApprovalGrant } from '../schema/approval-grant';
import type { Budget } from '../schema/turn-config';
import { NonRetryableToolError } from './run-tool-attempt';
import { budgetSlice } from './sub-agents';

/**
 * What a sub-agent starts with from its parent, as the parent's state shows it when the sub-agent
 * starts: its budget (`budgetSlice`), the grants in force ("always allow" covers the work a turn
 * hands on) and, where the parent has them, its approval rules (a signed turn's sub-agent takes only
 * signed decisions too). A parent with nothing left of something starts none: the call's error says so.
 */
export function subAgentStart(
  own: Budget | undefined,
  parent: Pick<TurnStateView, 'budgetLeft' | 'grants' | 'approvals'> | undefined,
): { budget: Budget; grants?: ApprovalGrant[]; approvals?: NonNullable<TurnStateView['approvals']> } {
  const budget = budgetSlice(own, parent?.budgetLeft);
  if (typeof budget === 'string') throw new NonRetryableToolError(`the sub-agent was not started: ${budget}`);
  return {
    budget,
    ...(parent?.grants?.length ? { grants: parent.grants } : {}),
    ...(parent?.approvals ? { approvals: parent.approvals } : {}),
  };
}
