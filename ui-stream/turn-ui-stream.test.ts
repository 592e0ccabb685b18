import { defineTool, InProcessExecutor, scriptedModel } from 'durable-turns';
import { z } from 'zod';
import {
  streamingScriptShown as expected,
  read,
  shown,
  streamingScript,
} from '../test/ui-stream/streaming-turn';
import { readUiMessage } from './read-ui-message';
import { turnUiStreamResponse } from './turn-ui-stream-response';

const executor = () => new InProcessExecutor({ tools: [read], model: scriptedModel(streamingScript()) });

test('a turn read live through the AI SDK client: its reasoning, text, tool call and output, a step per request, and the true status', async () => {
  const turns = executor();
  const done = turns.runTurn({ turnId: 'ui-1', input: 'read a.txt' });
  const { message, chunks } = await readUiMessage(
    turnUiStreamResponse({ watch: (signal) => turns.watch('ui-1', { after: 0, signal }), messageId: 'ui-1' }),
  );
  await done;

  expect(message?.id).toBe('ui-1');
  expect(shown(message)).toEqual(expected);
  // Text arrived as it streamed (in pieces), not only at the response's end.
  expect(chunks.filter((chunk) => chunk.type === 'text-delta').length).toBeGreaterThan(2);
  expect(message?.parts).toContainEqual(
    expect.objectContaining({ type: 'data-outcome', data: { status: 'completed' } }),
  );
  expect(chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
});

test('a client that drops the stream mid-turn and comes back is sent the message from its start, nothing lost or repeated', async () => {
  const turns = executor();
  const done = turns.runTurn({ turnId: 'ui-2', input: 'read a.txt' });
  const first = await readUiMessage(
    turnUiStreamResponse({ watch: (signal) => turns.watch('ui-2', { after: 0, signal }), messageId: 'ui-2' }),
    { stopAfter: 5 },
  );
  expect(first.chunks).toHaveLength(5);
  // Back while the turn still runs, and once more after it ended.
  const again = await readUiMessage(
    turnUiStreamResponse({ watch: (signal) => turns.watch('ui-2', { after: 0, signal }), messageId: 'ui-2' }),
  );
  await done;
  const after = await readUiMessage(
    turnUiStreamResponse({ watch: (signal) => turns.watch('ui-2', { after: 0, signal }), messageId: 'ui-2' }),
  );

  expect(shown(again.message)).toEqual(expected);
  expect(shown(after.message)).toEqual(expected);
});

test('a client that goes away while the turn waits ends the watch at once, not at the turn’s next event', async () => {
  const approval = defineTool({
    name: 'deploy',
    description: 'Deploys',
    input: z.object({}),
    requiresApproval: true,
    execute: () => 'deployed',
  });
  const turns = new InProcessExecutor({
    tools: [approval],
    // Nobody answers: the turn waits as long as the test lets it.
    approver: () => new Promise(() => {}),
    model: scriptedModel([{ toolCalls: [{ id: 'd', name: 'deploy', args: {} }] }, { text: 'done' }]),
  });
  const controller = new AbortController();
  const done = turns.runTurn({ turnId: 'ui-3', input: 'deploy' }, { signal: controller.signal });
  let watchEnded = false;
  const watch = async function* (signal: AbortSignal) {
    try {
      yield* turns.watch('ui-3', { after: 0, signal });
    } finally {
      watchEnded = true;
    }
  };
  const response = turnUiStreamResponse({ watch, messageId: 'ui-3' });
  const reader = response.body?.getReader();
  let seen = '';
  while (!seen.includes('tool-approval-request'))
    seen += new TextDecoder().decode((await reader?.read())?.value);

  await reader?.cancel();
  for (let tick = 0; tick < 10 && !watchEnded; tick++) await new Promise((resolve) => setImmediate(resolve));
  expect(watchEnded).toBe(true);

  controller.abort();
  expect((await done).status).toBe('cancelled');
});
