import { scriptedModel } from 'durable-turns';
import { readUiMessage } from '../../ui-stream/read-ui-message';
import { turnUiStreamResponse } from '../../ui-stream/turn-ui-stream-response';
import { uniqueTurnId } from '../conformance/support';
import { TemporalKit } from '../temporal/support/kit';
import { read, shown, streamingScript, streamingScriptShown } from './streaming-turn';

const kit = new TemporalKit();
beforeAll(() => kit.open());
afterAll(() => kit.close());

test('a turn on Temporal read through the AI SDK client, live, again mid-turn after the client dropped it, and after its end: the same message each time', async () => {
  const model = scriptedModel(streamingScript(150), 'ui-stream');
  const taskQueue = kit.taskQueue('ui-stream');
  const worker = await kit.worker({ taskQueue, tools: [read], model });
  await worker.runUntil(async () => {
    const turn = await kit
      .client(taskQueue)
      .start({ turnId: uniqueTurnId('ui'), input: 'read a.txt', model: model.name });
    const open = () =>
      turnUiStreamResponse({ watch: (signal) => turn.watch({ after: 0, signal }), messageId: turn.turnId });

    const live = readUiMessage(open());
    const dropped = await readUiMessage(open(), { stopAfter: 4 });
    const again = await readUiMessage(open());
    await turn.result();
    const after = await readUiMessage(open());

    expect(dropped.chunks).toHaveLength(4);
    // Live text came in pieces, through the model activity's heartbeats.
    expect((await live).chunks.filter((chunk) => chunk.type === 'text-delta').length).toBeGreaterThan(1);
    for (const read of [await live, again, after]) {
      expect(shown(read.message)).toEqual(streamingScriptShown);
      expect(read.chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
    }
  });
});
