import { type ApprovalRequest, describeThrown } from '../core';
import type { TurnHost } from './turn-host';

/** The host's approver's decision; no approver, or one that fails, is a rejection that says so. */
export async function askApproval(
  host: TurnHost,
  turnId: string,
  request: ApprovalRequest,
): Promise<{ approved: boolean; reason?: string }> {
  if (!host.approver)
    return {
      approved: false,
      reason:
        'this executor has no approver configured (pass `approver` to decide on calls that need approval)',
    };
  try {
    return await host.approver({ ...request, turnId });
  } catch (error) {
    return {
      approved: false,
      reason: `the approver failed: ${describeThrown(error, 'the approver').message}`,
    };
  }
}
