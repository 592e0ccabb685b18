import type { UpdateDefinition } from '@temporalio/common';
import { ApplicationFailure, log, setHandler, workflowInfo } from '@temporalio/workflow';
import type { z } from 'zod';
import {
  acceptCallsUpdate,
  approvalSchema,
  approveUpdate,
  conversationGrantSignal,
  conversationRevokeSignal,
  grantUpdate,
  modelRequestQuery,
  pinToolsetUpdate,
  progressQuery,
  revokeUpdate,
  stateQuery,
  steerSchema,
  steerSignal,
  type TurnWorkflowInput,
} from '../../contract/turn-workflow';
import {
  type ApprovalEvent,
  approvalGrantSchema,
  grantRevocationSchema,
  type HostEvent,
  listedToolsetSchema,
  type SubAgentApproval,
  turnStateView,
} from '../../core';
import { formatIssues } from '../../core/schema/format-issues';
import { refusedUnsigned, verifiedApproval } from '../activity-starts/approval-verification';
import { answerModelRequest, type TranscriptDigests } from '../activity-starts/model-request-answer';
import type { HostEventSink } from './host-event-queue';
import { progressPage } from './progress-page';
import type { TurnRecord } from './turn-record';

/**
 * The turn's queries and updates. Queries read the engine's state; updates only queue a host
 * event for the workflow's loop to feed in (after their validators refused what cannot apply).
 */
export function installTurnHandlers({
  input,
  turn,
  queue,
  digests,
  subAgentApprovals,
}: {
  input: TurnWorkflowInput;
  turn: TurnRecord;
  queue: HostEventSink;
  /** Shared with the model requests, which send their context along when it is small. */
  digests: TranscriptDigests;
  /** What its running sub-agents wait for (see `SubAgentWaits`). */
  subAgentApprovals: () => SubAgentApproval[];
}): void {
  const { engine } = turn;
  setHandler(stateQuery, () => {
    const view = turnStateView(engine.view, Date.now());
    const waiting = subAgentApprovals();
    return waiting.length > 0 ? { ...view, subAgentApprovals: waiting } : view;
  });
  setHandler(progressQuery, (after) => {
    const first = turn.progress[0]?.seq ?? turn.progressSeq() + 1;
    const waiting = subAgentApprovals();
    return {
      entries: progressPage(turn.progress, after),
      lastSeq: turn.progressSeq(),
      finished: engine.finished,
      gap: after + 1 < first,
      ...(waiting.length > 0 && { subAgentApprovals: waiting }),
    };
  });
  setHandler(modelRequestQuery, (responseIndex, known, page) =>
    answerModelRequest({
      view: engine.view,
      responseIndex,
      epoch: workflowInfo().firstExecutionRunId,
      known,
      page,
      digests,
    }),
  );
  setHandler(
    acceptCallsUpdate,
    (streamed) => {
      for (const call of streamed.calls)
        queue.push({ kind: 'call-streamed', responseIndex: streamed.responseIndex, call });
      return { accepted: true };
    },
    {
      validator: (streamed) => {
        if (!engine.view.modelInFlight || streamed.responseIndex !== engine.view.responseIndex) {
          throw new Error(`turn ${input.turnId} is not streaming response ${streamed.responseIndex}`);
        }
      },
    },
  );
  // The first offer is the turn's for good; it is in history (the update's argument), so a replay
  // pins the same list. No engine entry: the engine sees only calls, prepared against these tools.
  setHandler(
    pinToolsetUpdate,
    (offered) => {
      turn.toolset ??= offered;
      const pinned = turn.toolset;
      return pinned.digest === offered.digest
        ? { digest: pinned.digest }
        : { digest: pinned.digest, toolset: pinned };
    },
    {
      validator: (offered) => {
        const parsed = listedToolsetSchema.safeParse(offered);
        if (!parsed.success)
          throw new Error(`malformed toolset: ${formatIssues(parsed.error, { root: 'toolset' })}`);
      },
    },
  );
  // From the conversation: the same checks as the updates, but a signal cannot be refused (logged).
  // Anyone who reaches the frontend can send a signal: a signed turn takes none (its conversation
  // refuses grants of its own, and its turns' signed grants reach it through their results).
  const fromConversation = (event: ApprovalEvent) => {
    const refused =
      input.config.approvals.signed === true
        ? 'this turn takes only signed grants and revocations, through its own updates'
        : engine.checkApprovalEvent(event);
    if (refused === undefined) queue.push(event);
    else log.warn(`turn ${input.turnId}: a grant from its conversation was not taken: ${refused}`);
  };
  setHandler(conversationGrantSignal, (grant) => {
    const parsed = approvalGrantSchema.safeParse(grant);
    if (parsed.success) fromConversation({ kind: 'grant', grant: parsed.data });
  });
  setHandler(conversationRevokeSignal, (revocation) => {
    const parsed = grantRevocationSchema.safeParse(revocation);
    if (parsed.success) fromConversation({ kind: 'revoke', ...parsed.data });
  });
  setHandler(steerSignal, (steer) => {
    const parsed = steerSchema.safeParse(steer);
    // A signal cannot be refused: a malformed one is logged and dropped (the conversation never sends one).
    if (!parsed.success)
      log.warn(
        `turn ${input.turnId}: a malformed steer was dropped: ${formatIssues(parsed.error, { root: 'steer' })}`,
      );
    else queue.push({ kind: 'steer', messageId: parsed.data.messageId, message: parsed.data.message });
  });
  // Parsed again in the handler (validators do not run on replay): histories from before decisions
  // could edit or respond hold the yes/no form, which reads as the same decision.
  const signed = input.config.approvals.signed === true;
  // Taken but not fed yet (queued, or waiting for a signed verdict): a second decision on the same
  // call (grant id) would be accepted and then record nothing; it is refused instead.
  const verifying = new Set<string>();
  const pendingOn = (event: ApprovalEvent) =>
    verifying.has(approvalKey(event)) ||
    queue.queued().some((e) => isApprovalEvent(e) && approvalKey(e) === approvalKey(event));
  const approvalUpdate = <A, T>(
    update: UpdateDefinition<{ accepted: true }, [A]>,
    { schema, what, event }: { schema: z.ZodType<T>; what: string; event: (parsed: T) => ApprovalEvent },
  ) =>
    setHandler(
      update,
      (arg) => {
        const parsed = event(schema.parse(arg));
        const accept = () => {
          queue.push(parsed);
          return { accepted: true as const };
        };
        // Only a signed turn waits for a verdict: an unsigned one queues in the same step, as its
        // histories hold it. Meanwhile the call may have been decided (or the turn ended): checked again.
        if (!signed) return accept();
        verifying.add(approvalKey(parsed));
        return verifiedApproval({ turnId: input.turnId, event: parsed })
          .then(() => {
            const refused = engine.checkApprovalEvent(parsed);
            if (refused !== undefined) throw ApplicationFailure.nonRetryable(refused, 'approval-refused');
            return accept();
          })
          .finally(() => verifying.delete(approvalKey(parsed)));
      },
      {
        validator: (arg) => {
          const parsed = schema.safeParse(arg);
          if (!parsed.success)
            throw new Error(`malformed ${what}: ${formatIssues(parsed.error, { root: what })}`);
          // The cheap half of a signed turn's check: no signature at all never enters history.
          if (signed) refusedUnsigned({ event: event(parsed.data), what });
          // Refused here, it never enters history: an edit that fails the schema changes nothing.
          const refused = engine.checkApprovalEvent(event(parsed.data));
          if (refused !== undefined) throw new Error(refused);
          if (pendingOn(event(parsed.data)))
            throw new Error(`a ${what} on ${approvalKey(event(parsed.data))} is already being taken`);
        },
      },
    );
  approvalUpdate(approveUpdate, {
    schema: approvalSchema,
    what: 'approval',
    event: (decision) => ({ kind: 'approval', ...decision }),
  });
  approvalUpdate(grantUpdate, {
    schema: approvalGrantSchema,
    what: 'grant',
    event: (grant) => ({ kind: 'grant', grant }),
  });
  approvalUpdate(revokeUpdate, {
    schema: grantRevocationSchema,
    what: 'revocation',
    event: (revocation) => ({ kind: 'revoke', ...revocation }),
  });
}

const isApprovalEvent = (event: HostEvent): event is ApprovalEvent =>
  event.kind === 'approval' || event.kind === 'grant' || event.kind === 'revoke';

/** What an approval event decides on: a call, or a grant. */
function approvalKey(event: ApprovalEvent): string {
  if (event.kind === 'approval') return `call ${event.toolCallId}`;
  return `grant ${event.kind === 'grant' ? event.grant.grantId : event.grantId}`;
}
