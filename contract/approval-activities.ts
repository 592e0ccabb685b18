import type { ApprovalEvent } from '../core';

/** The failure an approval update ends with when a turn that takes only signed ones refuses it. */
export const approvalSignatureRefusedType = 'ApprovalSignatureRefused';

export interface VerifyApprovalInput {
  turnId: string;
  event: ApprovalEvent;
}

/** Why the signature is refused; nothing when it holds. */
export interface VerifyApprovalOutput {
  refused?: string;
}

/**
 * Run as a local activity by the approval updates of a turn with `approvals.signed`: the keys stay
 * on the worker, and only the verdict enters history (the local activity's marker), so a replay
 * reads it there instead of verifying again — long after the signature's freshness has passed.
 */
export interface ApprovalActivities {
  verifyApproval(input: VerifyApprovalInput): Promise<VerifyApprovalOutput>;
}
