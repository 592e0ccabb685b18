import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { scriptedModel } from 'durable-turns';
import { turnWorkflowSinks } from 'durable-turns/worker';
import { uniqueTurnId } from '../conformance/support';
import { replayTools } from '../replay/replay-tools';
import { suiteWorkflowBundle } from '../support/suite-workflow-bundle';
import { TemporalKit } from './support/kit';
import { collect, pollFor } from './support/poll';

const kit = new TemporalKit();
beforeAll(() => kit.open());
afterAll(() => kit.close());

type History = temporal.api.history.v1.IHistory;

const tools = replayTools;

/** Replays a run's history against the current workflow code; throws on nondeterminism. */
async function replay(history: History, workflowId: string): Promise<void> {
  await Worker.runReplayHistory(
    { workflowBundle: await suiteWorkflowBundle(), sinks: turnWorkflowSinks() },
    history,
    workflowId,
  );
}

function eventTypes(history: History): Set<string> {
  return new Set(
    (history.events ?? []).flatMap((event) =>
      Object.keys(event).filter((key) => key.endsWith('EventAttributes') && event[key as keyof typeof event]),
    ),
  );
}

describe('turn histories replay deterministically', () => {
  test('a turn with a parallel wave, a barrier, a retry and an approval replays without nondeterminism', async () => {
    const taskQueue = kit.taskQueue('replay-mixed');
    const model = scriptedModel([
      {
        text: 'working',
        toolCalls: [
          { id: 'a', name: 'read_file', args: { path: 'a' } },
          { id: 'b', name: 'read_file', args: { path: 'b' } },
          { id: 'c', name: 'write_file', args: { path: 'c' } },
          { id: 'd', name: 'flaky', args: {} },
          { id: 'e', name: 'deploy', args: { target: 'prod' } },
        ],
        // The stream goes on after the calls, so they are handed over by Update mid-stream.
        finishDelayMs: 300,
      },
      { text: 'done' },
    ]);
    const worker = await kit.worker({ taskQueue, tools, model });
    const { turnId, history } = await worker.runUntil(async () => {
      const client = kit.client(taskQueue);
      const turnId = uniqueTurnId('replay-mixed');
      const turn = await client.start({ turnId, input: 'go', model: 'scripted' });
      await pollFor('the deploy to wait for approval', async () =>
        (await turn.state()).phase === 'awaiting-approval' ? true : undefined,
      );
      await turn.approve('e', 'looks fine');
      const result = await turn.result();
      expect(result.status).toBe('completed');
      expect(result.outputs.map((o) => [o.toolCallId, o.status, o.attempts])).toEqual([
        ['a', 'ok', 1],
        ['b', 'ok', 1],
        ['c', 'ok', 1],
        ['d', 'ok', 2],
        ['e', 'ok', 1],
      ]);
      return { turnId, history: await client.client.workflow.getHandle(turnId).fetchHistory() };
    });

    // The history really holds what we mean to replay: a timer (the retry wait), the calls handed
    // over mid-stream and the approval (both updates).
    const types = eventTypes(history);
    expect(types).toContain('timerStartedEventAttributes');
    const updates = (history.events ?? []).flatMap((e) => {
      const name = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name;
      return name ? [name] : [];
    });
    expect(new Set(updates)).toEqual(new Set(['acceptCalls', 'approve']));
    expect(types).toContain('upsertWorkflowSearchAttributesEventAttributes');
    await expect(replay(history, turnId)).resolves.toBeUndefined();

    // The check has teeth: the same history with one tool activity renamed is refused.
    const tampered = temporal.api.history.v1.History.decode(
      temporal.api.history.v1.History.encode(history).finish(),
    );
    const toolSchedule = tampered.events.find(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool',
    );
    if (!toolSchedule?.activityTaskScheduledEventAttributes?.activityType)
      throw new Error('no runTool in history');
    toolSchedule.activityTaskScheduledEventAttributes.activityType.name = 'somethingElse';
    await expect(replay(tampered, turnId)).rejects.toThrow(/nondetermin/i);
  });

  test('every run of a turn that continued as new replays without nondeterminism', async () => {
    const taskQueue = kit.taskQueue('replay-can');
    const steps = 8;
    const model = scriptedModel([
      ...Array.from({ length: steps }, (_, r) => ({
        toolCalls: [0, 1, 2].map((i) => ({
          id: `r${r}c${i}`,
          name: 'read_file',
          args: { path: `f${r}-${i}`, ms: 10 },
        })),
      })),
      { text: 'done' },
    ]);
    const worker = await kit.worker({ taskQueue, tools, model });
    const { turnId, histories } = await worker.runUntil(async () => {
      const client = kit.client(taskQueue);
      const turnId = uniqueTurnId('replay-can');
      const turn = await client.start({
        turnId,
        input: 'go',
        model: 'scripted',
        continueAsNewAfterEvents: 40,
      });
      const result = await turn.result();
      expect(result.status).toBe('completed');
      expect(result.outputs).toHaveLength(steps * 3);
      const runs = await collect(client.client.workflow.list({ query: `WorkflowId = '${turnId}'` }));
      const histories = await Promise.all(
        runs.map((run) => client.client.workflow.getHandle(turnId, run.runId).fetchHistory()),
      );
      return { turnId, histories };
    });

    expect(histories.length).toBeGreaterThan(1);
    const continued = histories.filter((h) =>
      eventTypes(h).has('workflowExecutionContinuedAsNewEventAttributes'),
    );
    expect(continued).toHaveLength(histories.length - 1);
    for (const history of histories) await expect(replay(history, turnId)).resolves.toBeUndefined();
  });

  test('a cancelled turn replays without nondeterminism', async () => {
    const taskQueue = kit.taskQueue('replay-cancel');
    const model = scriptedModel([
      {
        toolCalls: [
          { id: 'quick', name: 'read_file', args: { path: 'q', ms: 10 } },
          { id: 'slow', name: 'read_file', args: { path: 's', ms: 20_000 } },
        ],
      },
      { text: 'never' },
    ]);
    const worker = await kit.worker({ taskQueue, tools, model });
    const { turnId, history } = await worker.runUntil(async () => {
      const client = kit.client(taskQueue);
      const turnId = uniqueTurnId('replay-cancel');
      const turn = await client.start({
        turnId,
        input: 'go',
        model: 'scripted',
        timing: { heartbeatTimeoutMs: 2_000 },
      });
      await pollFor('the quick read done and the slow one running', async () => {
        const calls = (await turn.state()).calls;
        const quick = calls.find((c) => c.toolCallId === 'quick');
        const slow = calls.find((c) => c.toolCallId === 'slow');
        return quick?.status === 'ok' && slow?.phase === 'running' ? true : undefined;
      });
      await turn.cancel();
      const result = await turn.result();
      expect(result.status).toBe('cancelled');
      expect(result.outputs.map((o) => [o.toolCallId, o.status])).toEqual([
        ['quick', 'ok'],
        ['slow', 'interrupted'],
      ]);
      return { turnId, history: await client.client.workflow.getHandle(turnId).fetchHistory() };
    });

    expect(eventTypes(history)).toContain('workflowExecutionCancelRequestedEventAttributes');
    await expect(replay(history, turnId)).resolves.toBeUndefined();
  });
});
