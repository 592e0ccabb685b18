import {
  ActivityCancellationType,
  ActivityFailure,
  allHandlersFinished,
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  proxyActivities,
  setHandler,
  TimeoutFailure,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { CallModelOutput, TurnActivities } from '../activities/activity-types';
import {
  type AttemptResult,
  isTranscriptEvent,
  type JournalEntry,
  type ToolStart,
  type TranscriptEvent,
  TurnEngine,
  type TurnOperation,
  turnStateView,
} from '../core';
import { packCarried, unpackCarried } from './carried-turn';
import type { TurnWorkflowResult } from './definitions';
import {
  type Approval,
  acceptCallsUpdate,
  approvalSchema,
  approveUpdate,
  modelRequestQuery,
  type ProgressEntry,
  progressQuery,
  type StreamedCall,
  stateQuery,
  type TurnWorkflowInput,
  turnWorkflowInputSchema,
} from './definitions';
import { answerModelRequest, transcriptDigests } from './model-request-answer';
import { packJson } from './packed-json';
import { conversationIdKey, turnStatusKey, waitingForApprovalKey } from './search-attributes';

interface Completion {
  toolCallId: string;
  attempt: number;
  result: AttemptResult;
  durationMs: number;
}

/**
 * One turn = one workflow (its id is the turn's fence). It drives the same `TurnEngine` as the
 * in-process executor: the engine decides, this code only carries out — the model request and each
 * tool attempt as an activity (activity id = tool call id), waits as durable conditions, approvals
 * as an Update, cancellation as explicit interrupted outputs written in a non-cancellable scope.
 * Temporal's history is the journal: on replay the engine is rebuilt by re-running this code.
 */
export async function turnWorkflow(rawInput: TurnWorkflowInput): Promise<TurnWorkflowResult> {
  const input = turnWorkflowInputSchema.parse(rawInput);
  const { timing } = input;
  // A run after continue-as-new picks up the turn where the previous run left it.
  const carried = input.carried
    ? unpackCarried({ head: input.carried, chunks: input.carriedChunks ?? [] })
    : undefined;
  const entries: TranscriptEvent[] = carried ? carried.events : [];
  // Watchers read progress by query from a bounded window of recent entries.
  const progress: ProgressEntry[] = [];
  let progressSeq = carried?.progressSeq ?? 0;
  const record = (produced: readonly JournalEntry[]) => {
    for (const entry of produced) {
      if (isTranscriptEvent(entry)) entries.push(entry);
      progressSeq += 1;
      progress.push({ seq: progressSeq, entry });
    }
    if (progress.length > progressWindow) progress.splice(0, progress.length - progressWindow);
  };
  let engine: TurnEngine;
  if (carried) engine = TurnEngine.restore(carried.snapshot);
  else {
    const started = TurnEngine.start({
      turnId: input.turnId,
      input: input.input,
      config: input.config,
      now: Date.now(),
    });
    engine = started.engine;
    record(started.entries);
  }

  const completions: Completion[] = [];
  const decisions: Approval[] = [];
  const running = new Map<string, Promise<void>>();
  let waitingForApproval = false;

  setHandler(stateQuery, () => turnStateView(engine.view, Date.now()));
  setHandler(progressQuery, (after) => {
    const first = progress[0]?.seq ?? progressSeq + 1;
    return {
      entries: progress.filter((p) => p.seq > after).slice(0, 500),
      lastSeq: progressSeq,
      finished: engine.finished,
      gap: after + 1 < first,
    };
  });
  const digests = transcriptDigests();
  setHandler(modelRequestQuery, (responseIndex, known) =>
    answerModelRequest({
      view: engine.view,
      responseIndex,
      epoch: workflowInfo().firstExecutionRunId,
      known,
      digests,
    }),
  );
  const streamedCalls: StreamedCall[] = [];
  setHandler(
    acceptCallsUpdate,
    (streamed) => {
      for (const call of streamed.calls) streamedCalls.push({ responseIndex: streamed.responseIndex, call });
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
  setHandler(
    approveUpdate,
    (approval) => {
      decisions.push(approval);
      return { accepted: true as const };
    },
    {
      validator: (approval) => {
        const parsed = approvalSchema.safeParse(approval);
        if (!parsed.success)
          throw new Error(`malformed approval: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
        const call = engine.view.batch?.byId.get(approval.toolCallId);
        const awaiting = turnStateView(engine.view, Date.now()).calls.find(
          (c) => c.toolCallId === approval.toolCallId,
        );
        if (!call || awaiting?.phase !== 'awaiting-approval') {
          throw new Error(`tool call ${approval.toolCallId} is not waiting for approval`);
        }
      },
    },
  );

  upsertSearchAttributes([
    { key: turnStatusKey, value: 'running' },
    { key: waitingForApprovalKey, value: false },
    ...(input.conversationId ? [{ key: conversationIdKey, value: input.conversationId }] : []),
  ]);

  const modelActivities = proxyActivities<TurnActivities>({
    startToCloseTimeout: timing.modelTimeoutMs,
    heartbeatTimeout: timing.heartbeatTimeoutMs,
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: {
      maximumAttempts: timing.modelMaxAttempts,
      initialInterval: 500,
      nonRetryableErrorTypes: ['ModelRequestRejected'],
    },
  });

  const launch = (start: ToolStart) => {
    const { call } = start;
    const policy = call.policy;
    const activities = proxyActivities<TurnActivities>({
      activityId: call.toolCallId,
      startToCloseTimeout: (policy.timeoutMs ?? timing.toolTimeoutMs) + timing.heartbeatTimeoutMs,
      heartbeatTimeout: timing.heartbeatTimeoutMs,
      cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
      // Application errors come back as data and the engine retries them; Temporal retries only
      // a lost attempt (worker died, heartbeat stopped) — and only for tools safe to run again.
      retry: {
        maximumAttempts: policy.retrySafe ? Math.max(3, policy.retry.maxAttempts) : 1,
        initialInterval: Math.max(1, policy.retry.initialDelayMs),
        backoffCoefficient: policy.retry.backoffCoefficient,
        maximumInterval: Math.max(1, policy.retry.maxDelayMs),
      },
    });
    const key = `${call.toolCallId}#${start.attempt}`;
    const done = activities
      .runTool({
        turnId: input.turnId,
        call,
        attempt: start.attempt,
        approved: start.approved,
        maxOutputBytes: input.maxOutputBytes,
      })
      .then(
        ({ result, durationMs }) =>
          completions.push({ toolCallId: call.toolCallId, attempt: start.attempt, result, durationMs }),
        (error: unknown) => {
          if (isCancellation(error)) return;
          completions.push({
            toolCallId: call.toolCallId,
            attempt: start.attempt,
            result: lostAttempt(error, policy.retrySafe),
            durationMs: 0,
          });
        },
      )
      .finally(() => running.delete(key));
    running.set(
      key,
      done.then(() => undefined),
    );
  };

  const fold = () => {
    for (const c of completions.splice(0)) record(engine.onToolAttemptFinished({ ...c, now: Date.now() }));
    for (const d of decisions.splice(0)) record(engine.onApproval(d));
  };
  // A call handed over mid-stream is accepted at once and starts if dispatch allows it.
  const foldStreamed = () => {
    for (const streamed of streamedCalls.splice(0)) {
      record(engine.onCallStreamed(streamed));
      const { entries: launched, starts } = engine.streamStarts(Date.now());
      record(launched);
      for (const start of starts) launch(start);
    }
  };
  let modelCall: Promise<void> | undefined;

  const callModel = async (op: Extract<TurnOperation, { kind: 'call-model' }>) => {
    let outcome: { response: CallModelOutput } | { error: unknown } | undefined;
    modelCall = modelActivities
      .callModel({
        turnId: input.turnId,
        workflowId: workflowInfo().workflowId,
        responseIndex: op.responseIndex,
        model: input.model,
      })
      .then(
        (response) => {
          outcome = { response };
        },
        (error: unknown) => {
          outcome = { error };
        },
      );
    // While the response streams: accept calls as they come, fold finished attempts.
    while (outcome === undefined) {
      await condition(() => outcome !== undefined || streamedCalls.length > 0 || completions.length > 0);
      foldStreamed();
      fold();
    }
    foldStreamed();
    const done = outcome as { response: CallModelOutput } | { error: unknown };
    if ('error' in done) {
      if (isCancellation(done.error)) throw done.error;
      record(engine.onModelFailed({ responseIndex: op.responseIndex, error: failureMessage(done.error) }));
      return;
    }
    const { streamedCallCount, ...response } = done.response;
    const accepted = engine.view.batch?.streamOpen ? engine.view.batch.calls.map((c) => c.call) : [];
    record(
      engine.onModelResponded({
        ...response,
        calls: [...accepted.slice(0, streamedCallCount), ...response.calls],
      }),
    );
  };

  const setWaiting = (waiting: boolean) => {
    if (waiting === waitingForApproval) return;
    waitingForApproval = waiting;
    upsertSearchAttributes([{ key: waitingForApprovalKey, value: waiting }]);
  };

  try {
    for (;;) {
      fold();
      if (!engine.finished && continueAsNewDue(input)) {
        // Drain first: nothing new starts, running attempts finish and are folded in, so the
        // next run starts from a state with nothing in flight.
        if (running.size > 0) {
          await condition(() => completions.length > 0 || running.size === 0);
          continue;
        }
        await condition(allHandlersFinished);
        fold();
        const next = packCarried(
          { snapshot: engine.snapshot(), events: entries, progressSeq },
          carried?.packedChunks,
        );
        await continueAsNew<typeof turnWorkflow>({
          ...input,
          run: input.run + 1,
          carried: next.head,
          carriedChunks: next.chunks,
        });
      }
      const step = engine.next(Date.now());
      record(step.entries);
      const op = step.op;
      if (op.kind === 'finished') break;
      if (op.kind === 'call-model') await callModel(op);
      else if (op.kind === 'run-tools') for (const start of op.starts) launch(start);
      else {
        setWaiting(op.approvals.length > 0);
        const wake = () => completions.length > 0 || decisions.length > 0;
        if (op.untilMs === undefined) await condition(wake);
        else await condition(wake, Math.max(1, op.untilMs - Date.now()));
        setWaiting(false);
      }
    }
  } catch (error) {
    if (!isCancellation(error)) throw error;
    await CancellationScope.nonCancellable(async () => {
      // Calls handed over before the cancel need their place in the transcript (and an output), not a start.
      for (const streamed of streamedCalls.splice(0)) record(engine.onCallStreamed(streamed));
      record(engine.onCancel({ reason: 'the turn was cancelled' }));
      // Wait for every running attempt (and the model stream) to really end: the activities see
      // the cancel through their heartbeats.
      await Promise.all([...running.values(), ...(modelCall ? [modelCall] : [])]);
    });
  }

  const outcome = engine.outcome();
  upsertSearchAttributes([
    { key: turnStatusKey, value: outcome.status },
    { key: waitingForApprovalKey, value: false },
  ]);
  const { outputs: _outputs, transcript: _transcript, ...summary } = outcome;
  // Each output once: the transcript is rebuilt from the events (plus the engine's notices).
  const notices: Record<string, string> = {};
  for (const output of outcome.outputs) if (output.notice) notices[output.toolCallId] = output.notice;
  return { ...summary, packed: packJson({ events: entries, notices }) };
}

/**
 * An attempt whose activity failed rather than returned: its worker was lost or it timed out at
 * the Temporal level. For a tool that is not retry-safe the outcome is unknown and it is not run
 * again (Temporal was told not to retry it either).
 */
function lostAttempt(error: unknown, retrySafe: boolean): AttemptResult {
  const message = failureMessage(error);
  if (!retrySafe && error instanceof ActivityFailure && error.cause instanceof TimeoutFailure) {
    return {
      status: 'interrupted',
      content: `outcome unknown; not retried (its worker was lost or stopped heartbeating: ${message})`,
      errorType: 'outcome-unknown',
    };
  }
  return {
    status: 'error',
    content: `the tool's activity failed: ${message}`,
    errorType: 'activity-failed',
    retryable: false,
    resultHash: `activity-failed:${message}`,
  };
}

const progressWindow = 2_000;

function continueAsNewDue(input: TurnWorkflowInput): boolean {
  const info = workflowInfo();
  return info.continueAsNewSuggested || info.historyLength >= input.continueAsNewAfterEvents;
}

function failureMessage(error: unknown): string {
  if (error instanceof ActivityFailure && error.cause) return error.cause.message;
  return error instanceof Error ? error.message : String(error);
}
