import {
  allHandlersFinished,
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  log,
  patched,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { conversationIdKey, turnStatusKey, waitingForApprovalKey } from '../../contract/search-attributes';
import type { TurnWorkflowInput, TurnWorkflowResult } from '../../contract/turn-workflow';
import { turnWorkflowInputSchema } from '../../contract/turn-workflow';
import { awaitingBackground, feedHostEvent, type TurnOperation } from '../../core';
import { CompactionActivity } from '../activity-starts/compaction-request';
import { ModelActivity, type ModelRoute } from '../activity-starts/model-request';
import { transcriptDigests } from '../activity-starts/model-request-answer';
import { ToolActivities } from '../activity-starts/tool-attempts';
import { callLabel } from '../web-ui/call-label';
import { CurrentDetails } from '../web-ui/current-details';
import { modelSummary } from '../web-ui/model-summary';
import { TurnDetails } from '../web-ui/turn-details';
import { waitSummary } from '../web-ui/wait-summary';
import { packCarried } from './carried-turn';
import { finish } from './finish-turn';
import { HostEventQueue } from './host-event-queue';
import { SubAgentWaits } from './sub-agent-waits';
import { installTurnHandlers } from './turn-handlers';
import { TurnListAttributes } from './turn-list-attributes';
import { reportTurnStarted } from './turn-metrics';
import { nextRunInput, openTurnRecord, type TurnRecord } from './turn-record';
import { workflowRevision } from './workflow-revision';

/**
 * One turn = one workflow (its id is the turn's fence). It drives the same `TurnEngine` as the
 * in-process executor and decides nothing itself: updates and activity outcomes are queued as
 * host events and fed to the engine in order; the engine's operations are carried out — the model
 * request and each tool attempt as an activity, waits as durable conditions, and after a cancel,
 * the outcomes of what was running recorded in a non-cancellable scope. Temporal's history is the
 * journal: on replay the engine is rebuilt by re-running this code.
 */
export async function turnWorkflow(rawInput: TurnWorkflowInput): Promise<TurnWorkflowResult> {
  const input = turnWorkflowInputSchema.parse(rawInput);
  const revision = workflowRevision({ fresh: input.carried === undefined });
  const turn = openTurnRecord(input, revision.engineRevision, Date.now());
  const { engine } = turn;
  const queue = new HostEventQueue();
  const digests = transcriptDigests();
  /** Whether the search attribute says the turn waits for a person: its own call, or a sub-agent's. */
  let ownWaiting = false;
  let waitingForApproval = false;
  const showWaiting = () => {
    const waiting = ownWaiting || waits.waiting();
    if (waiting === waitingForApproval) return;
    waitingForApproval = waiting;
    upsertSearchAttributes([{ key: waitingForApprovalKey, value: waiting }]);
  };
  const waits = new SubAgentWaits(input, () => engine.view, showWaiting);
  installTurnHandlers({ input, turn, queue, digests, subAgentApprovals: () => waits.list() });
  /**
   * Until something is queued (or `queue.wake()`). On the older road, a condition (`more()` also
   * ends it): there the loop went on only after the activation's microtasks, so its commands came
   * after an update's, and an older history replays only in that order.
   */
  const untilQueued = (more?: () => boolean): Promise<unknown> =>
    revision.wakeOnQueue ? queue.arrival() : condition(() => queue.length > 0 || (more?.() ?? false));
  reportTurnStarted({ continued: input.carried !== undefined });
  const listed = new TurnListAttributes(revision);
  upsertSearchAttributes([
    { key: turnStatusKey, value: 'running' },
    { key: waitingForApprovalKey, value: false },
    ...(input.conversationId ? [{ key: conversationIdKey, value: input.conversationId }] : []),
    ...listed.opening({ model: input.model }),
  ]);
  const tools = new ToolActivities(
    input,
    engine.view.revision,
    queue,
    revision.quickChains ? engine : undefined,
  );
  const route: ModelRoute = {};
  const { revision: rules } = engine.view;
  const model = new ModelActivity(input, rules, queue, digests, route);
  const compaction = new CompactionActivity(input, rules, queue, route, revision.routedCompaction);
  const turnDetails = new TurnDetails(engine, input.model);
  /** The Web UI's current details: what the turn is doing, rendered when read (CurrentDetails). */
  const details = new CurrentDetails({
    render: (phase) => turnDetails.render({ phase }),
    progressSeq: turn.progressSeq,
  });
  const show = (phase: string) => details.show(phase);

  /**
   * Feeds what happened: calls handed over from the stream first (each may start at once while the
   * response streams), then everything else in the order it came.
   */
  const feed = ({ launch }: { launch: boolean }) => {
    if (queue.length === 0) return;
    const events = queue.take();
    for (const event of events) {
      if (event.kind !== 'call-streamed') continue;
      turn.record(feedHostEvent(engine, event, Date.now()));
      if (!launch) continue;
      const { entries, starts } = engine.streamStarts(Date.now());
      turn.record(entries);
      for (const start of starts) tools.launch(start);
    }
    for (const event of events)
      if (event.kind !== 'call-streamed') turn.record(feedHostEvent(engine, event, Date.now()));
    // A call that ran a sub-agent may have ended: what it waited for waits no more.
    showWaiting();
  };
  /**
   * Folds what happens (calls handed over, attempts that end) until `running` — a model request or a
   * summary request — has queued its outcome, showing `phase` meanwhile.
   */
  const foldWhile = async (running: Promise<void>, phase: string) => {
    show(phase);
    let ended = false;
    void running.then(() => {
      ended = true;
      queue.wake();
    });
    while (!ended) {
      if (queue.length === 0) {
        listed.beforeWait(engine.view);
        await untilQueued(() => ended);
      }
      feed({ launch: true });
      show(phase);
    }
  };
  /** Set once this run's turn no longer fits a continue-as-new input: it goes on in this run. */
  const carry: CarryCheck = {};
  const setWaiting = (waiting: boolean) => {
    ownWaiting = waiting;
    showWaiting();
    waits.changed();
  };

  /** The loop's step up to the engine's next operation: what happened fed, then the engine asked. */
  const nextOperation = (): TurnOperation | typeof continuing => {
    feed({ launch: true });
    if (
      !engine.finished &&
      !tools.absorbing &&
      !carry.tooLarge &&
      continueAsNewDue(input, tools.runningInBackground)
    )
      return continuing;
    const step = engine.next(Date.now(), { haltedCompactionWaits: revision.haltedCompactionWaits });
    turn.record(step.entries);
    if (tools.absorbing && !startsChained(step.op)) tools.dropChained();
    return step.op;
  };
  /** Whether the engine starts one of the calls a quick chain ran (it starts them in the chain's order). */
  const startsChained = (op: TurnOperation) =>
    op.kind === 'run-tools' && op.starts.some((start) => tools.ranInChain(start));
  /** What a wait begins with, with a deadline or without. */
  const beginWait = (op: WaitOperation) => {
    if (op.stop) tools.stop(op.stop);
    listed.atWait(engine.view, {
      forRunningCalls:
        op.approvals.length === 0 && op.untilMs === undefined && !awaitingBackground(engine.view),
    });
    setWaiting(op.approvals.length > 0);
  };
  /** A wait without a deadline, up to where the loop waits for the queue. */
  const beforeQueueWait = (op: WaitOperation) => {
    show(waitingPhase(op.approvals, awaitingBackground(engine.view) ? engine.view.background.length : 0));
    listed.beforeWait(engine.view);
  };
  /**
   * The loop carried on in an attempt's callback while it is parked (`HostEventQueue.park`): tool
   * launches and waits for the queue are done here, anything else is handed to the loop.
   */
  const resume = (): { op: TurnOperation | typeof continuing } | undefined => {
    setWaiting(false);
    for (;;) {
      const op = nextOperation();
      if (op !== continuing && op.kind === 'run-tools') {
        for (const start of op.starts) tools.launch(start);
        continue;
      }
      if (op === continuing || op.kind !== 'wait' || op.untilMs !== undefined) return { op };
      beginWait(op);
      beforeQueueWait(op);
      if (queue.length === 0) return undefined;
      setWaiting(false);
    }
  };

  try {
    let handed: { op: TurnOperation | typeof continuing } | undefined;
    for (;;) {
      const op = handed ? handed.op : nextOperation();
      handed = undefined;
      if (op === continuing) {
        show('continuing as new once nothing runs');
        listed.beforeWait(engine.view);
        await continueAsNewWhenDrained({
          input,
          turn,
          tools,
          queue,
          carry,
          feed: () => feed({ launch: true }),
        });
        continue;
      }
      if (op.kind === 'finished') break;
      switch (op.kind) {
        case 'call-model':
          // While the response streams: accept calls as they come, fold finished attempts.
          await foldWhile(
            model.start(op, engine.view),
            `${modelSummary({ responseIndex: op.responseIndex, model: input.model, attempt: op.attempt })} streaming`,
          );
          listed.afterResponse(engine.view);
          break;
        case 'compact':
          // Background calls may finish meanwhile: their attempts are folded as they come.
          await foldWhile(
            compaction.start(op, engine.view.responseIndex),
            `compacting the context before response ${engine.view.responseIndex}`,
          );
          break;
        case 'run-tools':
          for (const start of op.starts) tools.launch(start);
          break;
        case 'wait': {
          beginWait(op);
          const wake = () => queue.length > 0;
          if (op.untilMs === undefined) {
            beforeQueueWait(op);
            if (revision.resumeFromAttempts) {
              // Attempts that end meanwhile carry the loop on themselves (`resume` did setWaiting).
              handed = (await queue.park(resume))?.value;
              if (handed) continue;
            } else await untilQueued();
          } else {
            // The timer says what it waits for (user metadata: replay does not match on it).
            const summary = waitSummary({ untilMs: op.untilMs, view: engine.view, model: input.model });
            show(summary);
            listed.beforeWait(engine.view);
            await condition(wake, Math.max(1, op.untilMs - Date.now()), { summary });
          }
          setWaiting(false);
          break;
        }
        default:
          throw new Error(`unknown operation ${JSON.stringify(op satisfies never)}`);
      }
    }
  } catch (error) {
    if (!isCancellation(error)) throw error;
    await CancellationScope.nonCancellable(async () => {
      show('cancelling: recording what the running calls report');
      // A quick chain's calls ran before the cancel: the engine starts and records them first, or
      // it would call them never started.
      if (tools.chainsRunning > 0) await tools.chainsSettled();
      while (tools.absorbing) {
        const op = nextOperation();
        if (op === continuing || op.kind !== 'run-tools') break;
        for (const start of op.starts) {
          if (tools.ranInChain(start)) tools.launch(start);
          else {
            const { toolCallId } = start.call;
            const detail = 'the turn was cancelled before it started';
            queue.push({ kind: 'attempt-not-started', toolCallId, attempt: start.attempt, detail });
          }
        }
      }
      // Calls handed over before the cancel take their place in the transcript; none starts now.
      queue.push({ kind: 'cancel', reason: 'the turn was cancelled' });
      feed({ launch: false });
      // Running attempts see the cancel through their heartbeats; what they report is recorded.
      while (!engine.finished) {
        await condition(() => queue.length > 0 || (tools.running === 0 && queue.length === 0));
        if (queue.length === 0 && tools.running === 0) break;
        feed({ launch: false });
        show('cancelling: recording what the running calls report');
      }
      await Promise.all([tools.settled(), model.settled(), compaction.settled()]);
      feed({ launch: false });
    });
  }
  // A decision still being verified (a signed turn's) gets its answer before the workflow closes
  // (also after a cancel). Histories without one never wait here.
  if (!allHandlersFinished()) await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  show('finished');
  waits.tell();
  return finish(turn, listed.atEnd(engine.view), tools.sessions);
}

/** The loop's own operation, beside the engine's: continue-as-new once nothing runs. */
const continuing = 'continue-as-new' as const;

type WaitOperation = Extract<TurnOperation, { kind: 'wait' }>;

/** What a wait without a deadline is for: a person's decision, or the calls that are running. */
function waitingPhase(
  approvals: readonly { toolName: string; toolCallId: string }[],
  awaitedInBackground: number,
): string {
  const first = approvals[0];
  if (!first && awaitedInBackground > 0)
    return `the model is done; waiting for ${awaitedInBackground} call${awaitedInBackground === 1 ? '' : 's'} running in the background`;
  if (!first) return 'tools running';
  const more = approvals.length > 1 ? ` and ${approvals.length - 1} more` : '';
  return `awaiting approval: ${callLabel({ call: first })}${more}`;
}

/**
 * Continue-as-new once nothing is in flight: running attempts finish and are fed in first (no new
 * ones start meanwhile), so the next run starts from a state with nothing running.
 */
async function continueAsNewWhenDrained({
  input,
  turn,
  tools,
  queue,
  carry,
  feed,
}: {
  input: TurnWorkflowInput;
  turn: TurnRecord;
  tools: ToolActivities;
  queue: HostEventQueue;
  carry: CarryCheck;
  feed: () => void;
}): Promise<void> {
  if (tools.running > 0) {
    await condition(() => queue.length > 0 || tools.running === 0);
    return;
  }
  await condition(allHandlersFinished);
  feed();
  const next = packCarried(
    { snapshot: turn.engine.snapshot(), events: turn.events, progressSeq: turn.progressSeq() },
    turn.carriedChunks,
  );
  const { sessions } = tools;
  const nextInput = nextRunInput({ input: { ...input, ...(sessions ? { sessions } : {}) }, turn, next });
  const chars = JSON.stringify(nextInput).length;
  // The server refuses a continue-as-new input over 2 MB and terminates the turn, its work lost. A
  // turn that no longer fits goes on in this run instead, whose history may grow to 50 MB (a patch:
  // runs recorded before this check continued as new with inputs up to the limit).
  if (chars > carryMaxChars && patched(carryCheckPatch)) {
    carry.tooLarge = chars;
    log.warn(
      `turn ${input.turnId}: its transcript (${chars} characters packed) no longer fits a continue-as-new input; it goes on in this run`,
    );
    return;
  }
  await continueAsNew<typeof turnWorkflow>(nextInput);
}

/** What `continueAsNewWhenDrained` found: the packed turn too large to carry, in characters. */
interface CarryCheck {
  tooLarge?: number;
}

/** The most characters a continue-as-new input may have (the server's limit is 2 MiB a payload). */
const carryMaxChars = 1_900_000;
const carryCheckPatch = 'durable-turns-carry-fits';

/**
 * An activity cannot outlive its run, so continue-as-new waits for background calls that run: the
 * turn goes on meanwhile (history grows) until it reaches a ceiling well below Temporal's limits
 * (51,200 events, 50 MiB); past it, nothing new starts until they finish (each within its timeout).
 */
function continueAsNewDue(input: TurnWorkflowInput, runningInBackground: number): boolean {
  const info = workflowInfo();
  const due = info.continueAsNewSuggested || info.historyLength >= input.continueAsNewAfterEvents;
  if (!due || runningInBackground === 0) return due;
  return (
    info.historyLength >= Math.min(5 * input.continueAsNewAfterEvents, postponedEventsCeiling) ||
    info.historySize >= postponedBytesCeiling
  );
}

const postponedEventsCeiling = 20_000;
const postponedBytesCeiling = 20 * 1024 * 1024;
