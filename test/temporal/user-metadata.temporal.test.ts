import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { defineTool, scriptedModel } from 'durable-turns';
import { z } from 'zod';
import { uniqueTurnId } from '../conformance/support';
import { suiteWorkflowBundle } from '../support/suite-workflow-bundle';
import { TemporalKit } from './support/kit';
import { pollFor } from './support/poll';

const kit = new TemporalKit();
beforeAll(() => kit.open());
afterAll(() => kit.close());

const read = defineTool({
  name: 'read_file',
  description: 'Reads a file',
  input: z.object({ path: z.string() }),
  concurrencySafe: true,
  execute: ({ path }) => `contents of ${path}`,
});
const note = defineTool({
  name: 'note',
  description: 'Takes a note',
  input: z.object({ text: z.string() }),
  concurrencySafe: true,
  execute: ({ text }) => `noted ${text.length} characters`,
});
/** Fails its first attempt, so the engine waits out a retry backoff before the second. */
const flaky = defineTool({
  name: 'flaky',
  description: 'Fails once',
  input: z.object({ n: z.number() }),
  concurrencySafe: true,
  retry: { maxAttempts: 2, initialDelayMs: 50 },
  execute: (_args, ctx) => {
    if (ctx.attempt === 1) throw new Error('first attempt fails');
    return 'second attempt worked';
  },
});
const deploy = defineTool({
  name: 'deploy',
  description: 'Deploys (a person must approve it)',
  input: z.object({ target: z.string() }),
  requiresApproval: true,
  execute: ({ target }) => `deployed ${target}`,
});

const decode = (payload: temporal.api.common.v1.IPayload | null | undefined): unknown =>
  payload ? defaultPayloadConverter.fromPayload(payload) : undefined;

describe('the Temporal Web UI reads as the turn (user metadata)', () => {
  test('activities name the tool, call and arguments or the model request; timers say what they wait for; the current details count the turn; the start names model and input', async () => {
    const taskQueue = kit.taskQueue('user-metadata');
    const longText = 'a'.repeat(20_000);
    const model = scriptedModel([
      {
        // The first request fails once: the engine waits out the model's retry backoff.
        failFirst: 1,
        toolCalls: [
          { id: 'read_mon', name: 'read_file', args: { path: 'notes/monday.md' } },
          { id: 'n1', name: 'note', args: { text: longText } },
          { id: 'f1', name: 'flaky', args: { n: 1 } },
        ],
        usage: { inputTokens: 100, outputTokens: 10 },
      },
      {
        toolCalls: [{ id: 'd1', name: 'deploy', args: { target: 'prod' } }],
        usage: { inputTokens: 200, outputTokens: 20 },
      },
      { text: 'all done', usage: { inputTokens: 300, outputTokens: 30 } },
    ]);
    const worker = await kit.worker({ taskQueue, tools: [read, note, flaky, deploy], model });
    await worker.runUntil(async () => {
      const client = kit.client(taskQueue);
      const turnId = uniqueTurnId('user-metadata');
      const turn = await client.start({
        turnId,
        input: 'What did I plan for Monday?\nLook in my notes.',
        model: 'scripted',
        modelRetry: { maxAttempts: 3, initialDelayMs: 50 },
        // Long enough never to fire here: the test approves, and the timer's summary is what it checks.
        approvals: { timeoutMs: 600_000 },
      });
      const workflow = client.client.workflow.getHandle(turnId);
      const details = async () =>
        (await workflow.query<{ currentDetails?: string }>('__temporal_workflow_metadata')).currentDetails ??
        '';

      // While the deploy waits for a person, the details say so and count what happened so far.
      const waiting = await pollFor('the details to show the approval wait', async () => {
        const text = await details();
        return text.includes('approval timeout: deploy d1') ? text : undefined;
      });
      expect(waiting).toContain('**scripted** · running');
      expect(waiting).toContain('- responses: 2');
      expect(waiting).toContain('- calls: 3 ok · 1 awaiting approval');
      expect(waiting).toContain('- tokens: 300 in · 30 out');
      await turn.approve('d1');
      const result = await turn.result();
      expect(result.status).toBe('completed');

      const finished = await details();
      expect(finished).toContain('**scripted** · completed · finished');
      expect(finished).toContain('- responses: 3');
      expect(finished).toContain('- calls: 4 ok');
      expect(finished).toContain('- tokens: 600 in · 60 out');

      const history = await workflow.fetchHistory();
      const summaries = (type: 'activity' | 'timer') =>
        (history.events ?? [])
          .filter((e) =>
            type === 'activity' ? e.activityTaskScheduledEventAttributes : e.timerStartedEventAttributes,
          )
          .map((e) => decode(e.userMetadata?.summary));
      const activities = summaries('activity');
      expect(activities).toEqual([
        'response 1 scripted',
        'response 1 scripted (attempt 2)',
        'read_file read_mon {"path":"notes/monday.md"}',
        expect.stringMatching(/^note n1 \{"text":"a+…$/),
        'flaky f1 {"n":1}',
        'flaky f1 (attempt 2) {"n":1}',
        'response 2 scripted',
        'deploy d1 {"target":"prod"}',
        'response 3 scripted',
      ]);
      // A 20 kB argument gives a summary of one short line.
      expect(String(activities[3]).length).toBeLessThan(200);
      // A wait is re-planned when something else happens during it (another call of the wave
      // finishing), which starts a new timer for the rest of it: each reason, in order, once or more.
      expect([...new Set(summaries('timer'))]).toEqual([
        'retry backoff: response 1 scripted (attempt 2)',
        'retry backoff: flaky f1 (attempt 2)',
        'approval timeout: deploy d1',
      ]);

      // Replay does not match on summaries: the history replays with them reworded (a later
      // release's wording) and without them (a history recorded before they existed).
      const copy = () =>
        temporal.api.history.v1.History.decode(temporal.api.history.v1.History.encode(history).finish());
      const reworded = copy();
      const stripped = copy();
      for (const event of reworded.events)
        if (event.userMetadata?.summary)
          event.userMetadata.summary = defaultPayloadConverter.toPayload('reworded');
      for (const event of stripped.events) event.userMetadata = null;
      const workflowBundle = await suiteWorkflowBundle();
      for (const variant of [history, reworded, stripped])
        await expect(Worker.runReplayHistory({ workflowBundle }, variant, turnId)).resolves.toBeUndefined();

      const described = await workflow.describe();
      expect(await described.staticSummary()).toBe('scripted · What did I plan for Monday?');
      expect(await described.staticDetails()).toContain(`**turn** \`${turnId}\``);
    });
  }, 120_000);
});
