import {
  type AnyTool,
  createModel,
  defineTool,
  InProcessExecutor,
  type TurnModel,
  transcriptProblems,
} from 'durable-turns';
import { z } from 'zod';
import { sleep, uniqueTurnId } from '../conformance/support';
import { startOpenAiChatServer } from '../support/models/openai-chat-server';
import { startOpenAiResponsesServer } from '../support/models/openai-responses-server';
import type { TestServer } from '../support/models/recording-server';
import { readFileTool } from '../support/models/wire-test-kit';
import { TemporalKit } from './support/kit';

const kit = new TemporalKit();
beforeAll(() => kit.open());
afterAll(() => kit.close());

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A weather lookup the model calls, over a real chat-completions stream from a local server. */
async function setUp(): Promise<{ model: TurnModel; tools: AnyTool[]; startedAt: number[] }> {
  server = await startOpenAiChatServer([
    {
      kind: 'stream',
      text: ['Checking ', 'the weather.'],
      toolCalls: [
        { id: 'call_paris', name: 'weather', argumentChunks: ['{"ci', 'ty":"Pa', 'ris"}'] },
        { id: 'call_rome', name: 'weather', argumentChunks: ['{"city":', '"Rome"}'] },
      ],
      usage: { promptTokens: 40, completionTokens: 12 },
      chunkDelayMs: 20,
      finishDelayMs: 400,
    },
    { kind: 'stream', text: ['Paris 18°C, Rome 24°C.'], usage: { promptTokens: 90, completionTokens: 8 } },
  ]);
  const model = createModel(
    {
      provider: 'openai-compatible',
      name: 'local-llm',
      model: 'test-model',
      baseURL: server.baseURL,
      apiKeyEnv: 'LOCAL_KEY',
    },
    { env: { LOCAL_KEY: 'sk-local-0123456789' } },
  );
  const startedAt: number[] = [];
  const weather = defineTool({
    name: 'weather',
    description: 'Current temperature in a city',
    input: z.object({ city: z.string() }),
    concurrencySafe: true,
    execute: async ({ city }) => {
      startedAt.push(Date.now());
      await sleep(50);
      return { city, celsius: city === 'Paris' ? 18 : 24 };
    },
  });
  return { model, tools: [weather], startedAt };
}

describe('a turn against a real model provider over HTTP', () => {
  test('in process: tool calls streamed over chat-completions run, results go back, usage counts', async () => {
    const { model, tools } = await setUp();
    const result = await new InProcessExecutor({ tools, model }).runTurn({
      turnId: uniqueTurnId('provider'),
      input: 'Weather in Paris and Rome?',
    });
    expect(result.status).toBe('completed');
    expect(result.text).toBe('Paris 18°C, Rome 24°C.');
    expect(result.outputs.map((o) => [o.toolCallId, o.status, o.content])).toEqual([
      ['call_paris', 'ok', { city: 'Paris', celsius: 18 }],
      ['call_rome', 'ok', { city: 'Rome', celsius: 24 }],
    ]);
    expect(result.usage).toEqual({ inputTokens: 130, outputTokens: 20 });
    expect(transcriptProblems(result.transcript)).toEqual([]);
    // The second request carried the tool results back to the provider, paired with their calls.
    const second = server?.requests[1]?.body as { messages: { role: string; tool_call_id?: string }[] };
    expect(second.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual([
      'call_paris',
      'call_rome',
    ]);
  });

  test('on Temporal: the same turn runs end to end, the streamed calls handed to the workflow and run', async () => {
    const { model, tools, startedAt } = await setUp();
    const taskQueue = kit.taskQueue('provider');
    const worker = await kit.worker({ taskQueue, tools, model });
    await worker.runUntil(async () => {
      const turn = await kit.client(taskQueue).start({
        turnId: uniqueTurnId('provider-t'),
        input: 'Weather in Paris and Rome?',
        model: 'local-llm',
      });
      const result = await turn.result();
      expect(result.status).toBe('completed');
      expect(result.text).toBe('Paris 18°C, Rome 24°C.');
      expect(result.outputs.map((o) => o.status)).toEqual(['ok', 'ok']);
      expect(result.usage).toEqual({ inputTokens: 130, outputTokens: 20 });
      const first = result.transcript[0];
      expect(
        first?.role === 'assistant' &&
          first.content.some((p) => p.type === 'text' && p.text === 'Checking the weather.'),
      ).toBe(true);
      expect(startedAt).toHaveLength(2);
    });
  });
});

test('on Temporal a stateful turn over the Responses API continues from each receipt: the activity sends only what is new', async () => {
  server = await startOpenAiResponsesServer([
    {
      kind: 'stream',
      id: 'resp_first',
      toolCalls: [{ callId: 'c1', name: 'read_file', argumentChunks: ['{"path":"a.txt"}'] }],
    },
    { kind: 'stream', id: 'resp_second', text: ['Read it.'] },
  ]);
  const model = createModel(
    { provider: 'openai', api: 'responses', name: 'responses', model: 'gpt-test', baseURL: server.baseURL },
    { env: { OPENAI_API_KEY: 'sk-test-0123456789' } },
  );
  const taskQueue = kit.taskQueue('stateful');
  const worker = await kit.worker({ taskQueue, tools: [readFileTool], model });
  await worker.runUntil(async () => {
    const turn = await kit.client(taskQueue).start({
      turnId: uniqueTurnId('stateful'),
      input: 'Read a.txt',
      model: 'responses',
      continuation: 'since-receipt',
    });
    const result = await turn.result();
    expect(result).toMatchObject({ status: 'completed', text: 'Read it.' });
    expect(result.events.flatMap((e) => (e.type === 'model.responded' ? [e.responseId] : []))).toEqual([
      'resp_first',
      'resp_second',
    ]);
  });
  const second = server.requests[1]?.body as {
    previous_response_id?: string;
    input: { type?: string; role?: string }[];
  };
  expect(second.previous_response_id).toBe('resp_first');
  expect(second.input.map((i) => i.role ?? i.type)).toEqual(['function_call_output']);
});

test('on Temporal a stateful turn with a model that stores no responses (store: false) fails at its first request, before the provider is asked, saying why', async () => {
  server = await startOpenAiResponsesServer([{ kind: 'stream', text: ['never sent'] }]);
  const model = createModel(
    {
      provider: 'openai',
      api: 'responses',
      name: 'zdr',
      model: 'gpt-test',
      baseURL: server.baseURL,
      providerOptions: { openai: { store: false } },
    },
    { env: { OPENAI_API_KEY: 'sk-test-0123456789' } },
  );
  const taskQueue = kit.taskQueue('stateful-zdr');
  const worker = await kit.worker({ taskQueue, tools: [readFileTool], model });
  const result = await worker.runUntil(async () => {
    const turn = await kit.client(taskQueue).start({
      turnId: uniqueTurnId('stateful-zdr'),
      input: 'Read a.txt',
      model: 'zdr',
      continuation: 'since-receipt',
    });
    return turn.result();
  });
  expect(result.status).toBe('failed');
  expect(result.reason).toContain(
    "continuation 'since-receipt' cannot work with model zdr: providerOptions.openai.store is false",
  );
  expect(result.modelResponses).toBe(0);
  expect(server.requests).toHaveLength(0);
});
