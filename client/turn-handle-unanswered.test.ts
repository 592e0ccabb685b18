import { Metadata } from '@grpc/grpc-js';
import { ServiceError, type WorkflowHandle } from '@temporalio/client';
import type { ProgressPage } from '../contract/turn-workflow';
import { TurnHandle } from './turn-handle';

/** What grpc-js rejects a query with, as the Temporal client wraps it. */
function grpcRefusal(code: number, details: string): ServiceError {
  const grpc = Object.assign(new Error(`${code} ${details}`), { code, details, metadata: new Metadata() });
  return new ServiceError('Failed to query Workflow', { cause: grpc });
}
/** The query's deadline passed before a worker answered it. */
const deadlineExceeded = () => grpcRefusal(4, 'query timed out before a worker could process it');
/** No worker polled the queue lately (it is restarting, or too busy to poll). */
const noPoller = () => grpcRefusal(9, 'no poller seen for task queue recently, worker may be down');

const finishedPage: ProgressPage = {
  entries: [{ seq: 1, entry: { type: 'turn.finished', status: 'completed' } }],
  lastSeq: 1,
  finished: true,
  gap: false,
};

/** A turn's workflow handle whose progress query answers with `answers`, one per call. */
function handleAnswering(answers: Array<() => Promise<ProgressPage>>) {
  let asked = 0;
  const workflow = {
    query: () => {
      const answer = answers[asked] ?? answers[answers.length - 1];
      asked += 1;
      return answer ? answer() : Promise.reject(new Error('no answer scripted'));
    },
  } as unknown as WorkflowHandle;
  return { handle: new TurnHandle('t1', workflow), asked: () => asked };
}

async function entriesOf(handle: TurnHandle): Promise<string[]> {
  const types: string[] = [];
  for await (const event of handle.watch({ live: false, intervalMs: 1 })) types.push(event.entry.type);
  return types;
}

describe('a watcher whose queries go unanswered for a while', () => {
  test('asks again when a query times out before a busy worker takes it, and misses nothing', async () => {
    const { handle, asked } = handleAnswering([
      () => Promise.reject(deadlineExceeded()),
      () => Promise.reject(deadlineExceeded()),
      () => Promise.resolve(finishedPage),
    ]);
    await expect(entriesOf(handle)).resolves.toEqual(['turn.finished']);
    expect(asked()).toBe(3);
  });

  test('asks again when no worker polled the queue lately (restarting, or too busy), and misses nothing', async () => {
    const { handle, asked } = handleAnswering([
      () => Promise.reject(noPoller()),
      () => Promise.resolve(finishedPage),
    ]);
    await expect(entriesOf(handle)).resolves.toEqual(['turn.finished']);
    expect(asked()).toBe(2);
  });

  test('gives up at once on an error that asking again cannot mend', async () => {
    const { handle, asked } = handleAnswering([() => Promise.reject(new Error('query handler threw'))]);
    await expect(entriesOf(handle)).rejects.toThrow('query handler threw');
    expect(asked()).toBe(1);
  });
});
