import { InProcessExecutor, scriptedModel } from 'durable-turns';
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
    turnUiStreamResponse({ events: turns.watch('ui-1', { after: 0 }), messageId: 'ui-1' }),
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
    turnUiStreamResponse({ events: turns.watch('ui-2', { after: 0 }), messageId: 'ui-2' }),
    { stopAfter: 5 },
  );
  expect(first.chunks).toHaveLength(5);
  // Back while the turn still runs, and once more after it ended.
  const again = await readUiMessage(
    turnUiStreamResponse({ events: turns.watch('ui-2', { after: 0 }), messageId: 'ui-2' }),
  );
  await done;
  const after = await readUiMessage(
    turnUiStreamResponse({ events: turns.watch('ui-2', { after: 0 }), messageId: 'ui-2' }),
  );

  expect(shown(again.message)).toEqual(expected);
  expect(shown(after.message)).toEqual(expected);
});
