import { ActivityFailure, ApplicationFailure, proxyLocalActivities } from '@temporalio/workflow';
import { type ApprovalActivities, approvalSignatureRefusedType } from '../../contract/approval-activities';
import type { ApprovalEvent } from '../../core';

const refusal = 'refused: this turn takes only signed decisions, grants and revocations';

const { verifyApproval } = proxyLocalActivities<ApprovalActivities>({
  summary: 'verify an approval signature',
  startToCloseTimeout: '10 seconds',
  // A verdict does not change on a second look; a worker without the activity will not grow one.
  retry: { maximumAttempts: 1 },
});

/**
 * Refuses (in an update's validator) an event that carries no signature: it never enters history.
 * Whether a signature holds needs the keys, which only the worker's local activity has.
 */
export function refusedUnsigned({ event, what }: { event: ApprovalEvent; what: string }): void {
  const fields = event.kind === 'grant' ? event.grant : event;
  if (fields.signature === undefined || fields.issuedAt === undefined)
    throw new Error(
      `${refusal}; this ${what} is not signed (its sender needs DURABLE_TURNS_APPROVAL_KEYS, as the turn's workers have)`,
    );
}

/**
 * Resolves once the worker's keys verify the event's signature for this turn; otherwise fails the
 * update (an ApplicationFailure: a plain error would fail the workflow task instead) and the event
 * is never queued.
 */
export async function verifiedApproval(input: { turnId: string; event: ApprovalEvent }): Promise<void> {
  let refused: string | undefined;
  try {
    ({ refused } = await verifyApproval(input));
  } catch (error) {
    const why = error instanceof ActivityFailure && error.cause ? error.cause.message : String(error);
    refused = `the worker could not verify its signature: ${why}`;
  }
  if (refused !== undefined)
    throw ApplicationFailure.create({
      message: `${refusal}; ${refused}`,
      type: approvalSignatureRefusedType,
      nonRetryable: true,
    });
}
