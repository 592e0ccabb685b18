import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { temporal } from '@temporalio/proto';
import { scriptedModel, type TurnResult } from 'durable-turns';
import { uniqueTurnId } from '../conformance/support';
import { echoTool } from '../support/echo-tool';
import { TemporalKit } from './support/kit';

type History = temporal.api.history.v1.IHistory;

const kit = new TemporalKit();
beforeAll(() => kit.open());
afterAll(() => kit.close());

/** Three calls, then the end of the stream `finishDelayMs` later. */
const threeCalls = (finishDelayMs: number) =>
  scriptedModel([
    {
      text: 'checking',
      toolCalls: [1, 2, 3].map((n) => ({ id: `e${n}`, name: 'echo', args: { n } })),
      ...(finishDelayMs > 0 ? { finishDelayMs } : {}),
    },
    { text: 'done' },
  ]);

async function runTurn(finishDelayMs: number): Promise<{ result: TurnResult; history: History }> {
  const taskQueue = kit.taskQueue('hand-over');
  const worker = await kit.worker({ taskQueue, tools: [echoTool], model: threeCalls(finishDelayMs) });
  return worker.runUntil(async () => {
    const client = kit.client(taskQueue);
    const turnId = uniqueTurnId('hand-over');
    const result = await (await client.start({ turnId, input: 'go', model: 'scripted' })).result();
    return { result, history: await client.client.workflow.getHandle(turnId).fetchHistory() };
  });
}

/** The names of the Updates a history accepted, in order. */
const updatesIn = (history: History) =>
  (history.events ?? []).flatMap((e) => {
    const name = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name;
    return name ? [name] : [];
  });

describe('streamed calls reach the workflow once, by the cheaper way', () => {
  test('calls still complete while the stream goes on are handed over by Update; calls the end of the stream overtakes travel with the response, and the turn is the same', async () => {
    const streaming = await runTurn(400);
    const atTheEnd = await runTurn(0);

    expect(updatesIn(streaming.history)).toEqual(['acceptCalls']);
    // No Update: that is one workflow task and two events fewer for this model request.
    expect(updatesIn(atTheEnd.history)).toEqual([]);

    for (const { result } of [streaming, atTheEnd]) {
      expect(result.status).toBe('completed');
      expect(result.outputs.map((o) => [o.toolCallId, o.status, o.content])).toEqual([
        ['e1', 'ok', 'echo 1'],
        ['e2', 'ok', 'echo 2'],
        ['e3', 'ok', 'echo 3'],
      ]);
    }
    expect(atTheEnd.result.transcript).toEqual(streaming.result.transcript);
  }, 60_000);
});
