import { createModel } from 'durable-turns';
import { uniqueTurnId } from '../conformance/support';
import { startOpenAiChatServer, type TestServer } from '../support/models';
import { contextOverflowSaid, openAiContextOverflow } from '../support/models/context-overflow-replies';
import { readRecording, startRecordedStreamServer } from '../support/models/recorded-stream-server';
import { readFileTool } from '../support/models/wire-test-kit';
import { TemporalKit } from '../temporal/support/kit';

const kit = new TemporalKit();
beforeAll(() => kit.open());
afterAll(() => kit.close());
const servers: TestServer[] = [];
afterEach(() => Promise.all(servers.splice(0).map((server) => server.close())));

/** The server started, to be closed after the test. */
async function serving(started: Promise<TestServer>): Promise<TestServer> {
  const server = await started;
  servers.push(server);
  return server;
}

const openAiKey = 'sk-verdict-test-0123456789';

/**
 * On Temporal the provider's verdict crosses the activity boundary as the failure's type: a final
 * error is asked once, and a context overflow arrives at the workflow as its own kind.
 */
describe('the provider’s verdict on Temporal', () => {
  test('an insufficient_quota error event after HTTP 200 is asked once, and the turn says why in the provider’s words', async () => {
    const recording = readRecording('openai-responses', 'gpt-5-nano-insufficient-quota-error.sse');
    const server = await serving(startRecordedStreamServer('/v1/responses', () => ({ body: recording })));
    const model = createModel(
      { provider: 'openai', api: 'responses', name: 'wire', model: 'gpt-5-nano', baseURL: server.baseURL },
      { env: { OPENAI_API_KEY: openAiKey } },
    );
    const taskQueue = kit.taskQueue('verdict-quota');
    const worker = await kit.worker({ taskQueue, tools: [readFileTool], model });
    const result = await worker.runUntil(async () => {
      const turn = await kit
        .client(taskQueue)
        .start({ turnId: uniqueTurnId('quota'), input: 'hi', model: 'wire' });
      return turn.result();
    });
    expect(server.requests).toHaveLength(1);
    expect(result.status).toBe('failed');
    expect(result.reason).toMatch(
      /^model request 0 failed: openai\.responses stream error insufficient_quota: You exceeded your current quota/,
    );
    expect(result.reason).toMatch(/\(not retried: the account's quota or billing\)$/);
    expect(result.reason).not.toMatch(/HTTP|429/);
  });

  test('a context overflow is asked once and fails the activity with a type of its own, which the turn names', async () => {
    const server = await serving(startOpenAiChatServer([openAiContextOverflow, openAiContextOverflow]));
    const model = createModel(
      { provider: 'openai', name: 'wire', model: 'gpt-4.1-mini', baseURL: server.baseURL },
      { env: { OPENAI_API_KEY: openAiKey } },
    );
    const taskQueue = kit.taskQueue('verdict-overflow');
    const worker = await kit.worker({ taskQueue, tools: [readFileTool], model });
    const turnId = uniqueTurnId('overflow');
    const client = kit.client(taskQueue);
    const result = await worker.runUntil(async () => {
      const turn = await client.start({ turnId, input: 'hi', model: 'wire' });
      return turn.result();
    });
    expect(server.requests).toHaveLength(1);
    expect(result.status).toBe('failed');
    expect(result.reason).toContain('HTTP 400 Bad Request: context_length_exceeded');
    expect(result.reason).toContain(contextOverflowSaid);
    const events = (await client.client.workflow.getHandle(turnId).fetchHistory()).events ?? [];
    const failures = events.flatMap((e) => {
      const failure = e.activityTaskFailedEventAttributes?.failure;
      return failure ? [failure] : [];
    });
    expect(failures).toHaveLength(1);
    expect(failures[0]?.applicationFailureInfo).toMatchObject({
      type: 'ModelContextOverflow',
      nonRetryable: true,
    });
  });
});
