import { asyncLocalStorage, Context, type Info } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { noopMetricMeter } from '@temporalio/common/lib/metrics';
import { hostFiles } from '../blobs';
import { modelFailedType } from '../contract/activities';
import { ToolHealthRegistry, ToolRegistry } from '../core';
import { scriptedModel } from '../models';
import { createActivities } from './create-activities';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

/** An activity context whose client answers the transcript query with `query`, and the activities. */
function modelActivity({
  heartbeatTimeoutMs,
  query,
  onHeartbeat = () => {},
}: {
  heartbeatTimeoutMs: number;
  query: () => Promise<unknown>;
  onHeartbeat?: () => void;
}) {
  const client = { workflow: { getHandle: () => ({ query }) } } as unknown as Client;
  const info = { activityId: '1', attempt: 1, heartbeatTimeoutMs } as unknown as Info;
  const ctx = new Context(
    info,
    new Promise<never>(() => {}),
    new AbortController().signal,
    onHeartbeat,
    client,
    quiet,
    noopMetricMeter,
    { details: undefined },
  );
  const activities = createActivities({
    registry: new ToolRegistry([]),
    models: new Map([['scripted', scriptedModel([{ text: 'hi' }])]]),
    hooks: [],
    observers: [],
    health: new ToolHealthRegistry({ now: Date.now }),
    files: hostFiles({}),
  });
  return () =>
    asyncLocalStorage.run(ctx, () =>
      activities.callModel({ turnId: 't', workflowId: 't', responseIndex: 0, model: 'scripted' }),
    );
}

/**
 * The model activity reads its transcript by query before it streams. On a busy server that read
 * can take longer than the heartbeat timeout; an activity silent that long is counted lost and its
 * attempt burnt. It must heartbeat from its first moment, not only once the stream starts.
 */
test('the model activity heartbeats while it waits for its transcript query', async () => {
  const heartbeatTimeoutMs = 400;
  const queryMs = 4 * heartbeatTimeoutMs;
  const beats: number[] = [];
  let queryStarted = 0;
  let queryEnded = 0;
  const callModel = modelActivity({
    heartbeatTimeoutMs,
    onHeartbeat: () => beats.push(Date.now()),
    query: async () => {
      queryStarted = Date.now();
      await sleep(queryMs);
      queryEnded = Date.now();
      return null; // the turn no longer waits: the activity ends right after the read
    },
  });
  await expect(callModel()).rejects.toThrow(/no longer waiting/);
  const during = beats.filter((at) => at >= queryStarted && at <= queryEnded);
  // Far more often than the timeout: the longest silence while the query ran stays under it.
  const times = [queryStarted, ...during, queryEnded];
  const gaps = times.slice(1).map((at, i) => at - (times[i] ?? at));
  expect(during.length).toBeGreaterThanOrEqual(3);
  expect(Math.max(...gaps)).toBeLessThan(heartbeatTimeoutMs);
});

test('a transcript query that is never answered fails the attempt as transient, not after the request timeout', async () => {
  const callModel = modelActivity({ heartbeatTimeoutMs: 400, query: () => new Promise(() => {}) });
  const started = Date.now();
  const failure = await callModel().then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(failure).toBeInstanceOf(ApplicationFailure);
  expect(failure).toMatchObject({ type: modelFailedType, nonRetryable: false });
  expect(String((failure as Error).message)).toMatch(/transcript from its workflow took longer than 5000 ms/);
  // It waited for the deadline (max(5 s, the heartbeat timeout)), not for the request's own timeout.
  expect(Date.now() - started).toBeGreaterThanOrEqual(5_000);
}, 20_000);
