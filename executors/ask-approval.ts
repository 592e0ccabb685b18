import {
  type ApprovalDecision,
  type ApprovalRequest,
  approvalDecisionSchema,
  describeThrown,
  formatIssues,
  maxRefusedDecisions,
} from '../core';
import type { TurnHost } from './turn-host';

/**
 * The host's approver's decision. No approver, one that fails or answers nonsense, is a rejection
 * that says so. A decision whose edited arguments do not match the tool's schema is refused (nothing
 * runs) and the approver is asked again, told why (`refused`), as a person at a CLI would be.
 */
export async function askApproval({
  host,
  turnId,
  request,
  parent,
  refusedEdit,
}: {
  host: TurnHost;
  turnId: string;
  /** A sub-agent's parent turn and call: the approver is told (its request's `parent`). */
  parent?: { turnId: string; toolCallId: string };
  request: ApprovalRequest;
  /** Why the decision cannot be taken while its call waits (the engine's check). */
  refusedEdit: (decision: ApprovalDecision) => string | undefined;
}): Promise<ApprovalDecision> {
  const { toolCallId } = request;
  const rejected = (reason: string): ApprovalDecision => ({
    toolCallId,
    decision: 'reject',
    reason,
    via: 'approver',
  });
  const approver = host.approver;
  if (!approver)
    return rejected(
      'this executor has no approver configured (pass `approver` to decide on calls that need approval)',
    );
  let refused: string | undefined;
  for (let asked = 1; ; asked++) {
    let answer: unknown;
    try {
      answer = await approver({
        ...request,
        turnId,
        ...(parent && { parent }),
        ...(refused !== undefined && { refused }),
      });
    } catch (error) {
      return rejected(`the approver failed: ${describeThrown(error, 'the approver').message}`);
    }
    const parsed = approvalDecisionSchema.safeParse({ via: 'approver', ...(answer as object), toolCallId });
    if (!parsed.success)
      return rejected(
        `the approver's decision is malformed: ${formatIssues(parsed.error, { root: 'decision' })}`,
      );
    refused = refusedEdit(parsed.data);
    if (refused === undefined) return parsed.data;
    if (asked >= maxRefusedDecisions)
      return rejected(`the approver's decision was refused ${asked} times; the last time: ${refused}`);
  }
}
