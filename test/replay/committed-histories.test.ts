import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { type ReplayResult, Worker } from '@temporalio/worker';
import { turnWorkflowSinks } from 'durable-turns/worker';
import { z } from 'zod';
import { suiteWorkflowBundle } from '../support/suite-workflow-bundle';

/**
 * Turns run for days, so workers upgrade under running turns: every history recorded by an
 * earlier release (see capture-histories.ts) must replay against today's workflow code without a
 * nondeterminism error. No server is needed: replay runs the workflow code against the events.
 */
const fixtureSchema = z.object({
  scenario: z.string(),
  workflowId: z.string(),
  commit: z.string(),
  eventTypes: z.array(z.string()),
  historyBase64: z.string(),
});

const dir = path.join(__dirname, 'histories');
const fixtures = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((file) => {
    const fixture = fixtureSchema.parse(JSON.parse(readFileSync(path.join(dir, file), 'utf8')));
    return {
      file,
      ...fixture,
      history: temporal.api.history.v1.History.decode(Buffer.from(fixture.historyBase64, 'base64')),
    };
  });

test('the committed histories cover a wave, a retry, an approval, a cancel, continue-as-new and a lost worker', () => {
  const types = new Set(fixtures.flatMap((f) => f.eventTypes));
  for (const expected of [
    'TIMER_STARTED',
    'WORKFLOW_EXECUTION_UPDATE_ACCEPTED',
    'WORKFLOW_EXECUTION_CANCEL_REQUESTED',
    'WORKFLOW_EXECUTION_CONTINUED_AS_NEW',
    'ACTIVITY_TASK_TIMED_OUT',
  ])
    expect(types).toContain(expected);
  expect(fixtures.length).toBeGreaterThanOrEqual(10);
});

/**
 * Each history's replay, by its place among the fixtures: all replayed by one replay worker (one
 * worker and one load of the bundle, not one per history: that was most of this file's time), in
 * order, each as a run of its own.
 */
let replays: ReplayResult[] = [];
beforeAll(async () => {
  const results: ReplayResult[] = [];
  for await (const result of Worker.runReplayHistories(
    { workflowBundle: await suiteWorkflowBundle(), sinks: turnWorkflowSinks() },
    fixtures.map((f) => ({ history: f.history, workflowId: f.workflowId })),
  ))
    results.push(result);
  replays = results;
}, 300_000);

describe.each(fixtures.map((f, i) => [f.file, i] as const))('%s', (_file, i) => {
  test('replays against today’s workflow code without nondeterminism', () => {
    expect(replays).toHaveLength(fixtures.length);
    expect(replays[i]?.workflowId).toBe(fixtures[i]?.workflowId);
    expect(replays[i]?.error).toBeUndefined();
  });
});

test('a history that does not match the code is refused (the check has teeth)', async () => {
  const fixture = fixtures.find((f) => f.scenario === 'wave-barrier-retry-approval');
  if (!fixture) throw new Error('fixture missing');
  const tampered = temporal.api.history.v1.History.decode(Buffer.from(fixture.historyBase64, 'base64'));
  const schedule = tampered.events.find(
    (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool',
  )?.activityTaskScheduledEventAttributes?.activityType;
  if (!schedule) throw new Error('no runTool in the fixture');
  schedule.name = 'somethingElse';
  // The same way the fixtures are replayed: a batch, where a bad history is reported, not thrown.
  const results: ReplayResult[] = [];
  for await (const result of Worker.runReplayHistories(
    { workflowBundle: await suiteWorkflowBundle(), sinks: turnWorkflowSinks() },
    [
      { history: tampered, workflowId: fixture.workflowId },
      { history: fixture.history, workflowId: fixture.workflowId },
    ],
  ))
    results.push(result);
  expect(results.map((r) => r.error?.message)).toEqual([expect.stringMatching(/nondetermin/i), undefined]);
}, 120_000);
