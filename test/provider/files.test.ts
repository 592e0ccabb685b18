import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  createModel,
  defineTool,
  InProcessExecutor,
  type InProcessExecutorOptions,
  type Message,
  withFiles,
} from 'durable-turns';
import { z } from 'zod';
import { fileBlobStore } from '../../blobs';
import {
  claudeAt,
  compatibleAt,
  startAnthropicServer,
  startOpenAiChatServer,
  startOpenAiResponsesServer,
  type TestServer,
} from '../support/models';

/**
 * Images and files over real HTTP through the AI SDK's providers: a user's image goes to the
 * provider as an image, a tool's screenshot comes back to the model in its tool result, large ones
 * are kept in the blob store with only a reference in the transcript, and whatever cannot be kept
 * or sent says so clearly without failing the turn (a tool's) or before starting it (the caller's).
 */
const screenshot = randomBytes(500 * 1024);
const small = randomBytes(2 * 1024);
const base64 = (bytes: Buffer) => bytes.toString('base64');

let server: TestServer | undefined;
let blobs: string;
beforeEach(() => {
  blobs = mkdtempSync(path.join(tmpdir(), 'durable-turns-files-'));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(blobs, { recursive: true, force: true });
});

const screenshotTool = (bytes: Buffer) =>
  defineTool({
    name: 'screenshot',
    description: 'Screenshot of the page',
    input: z.object({ page: z.string() }),
    execute: ({ page }) =>
      withFiles(`The page ${page}`, [{ mediaType: 'image/png', filename: 'page.png', data: bytes }]),
  });

async function claudeTurn({
  input,
  tools = [],
  options = {},
}: {
  input: Message[];
  tools?: InProcessExecutorOptions['tools'];
  options?: Partial<InProcessExecutorOptions>;
}) {
  server = await startAnthropicServer([
    ...(tools.length > 0
      ? [
          {
            kind: 'stream' as const,
            toolUses: [{ id: 'toolu_1', name: 'screenshot', inputChunks: ['{"page":"home"}'] }],
          },
        ]
      : []),
    { kind: 'stream', text: ['I see it.'] },
  ]);
  const executor = new InProcessExecutor({
    tools,
    model: claudeAt(server.baseURL),
    blobStore: fileBlobStore({ directory: blobs }),
    modelRetry: { maxAttempts: 1 },
    ...options,
  });
  return executor.runTurn({ turnId: `files-${Date.now()}`, input });
}

const bodyOf = (index: number) =>
  server?.requests[index]?.body as { messages: { role: string; content: unknown[] }[] };
const imageBlock = (bytes: Buffer) => ({
  type: 'image',
  source: { type: 'base64', media_type: 'image/png', data: base64(bytes) },
});

describe('images and files', () => {
  it("sends a user's images to the provider as images; a large one is kept in the blob store, the transcript holding its reference and digest", async () => {
    const input: Message[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is on these?' },
          { type: 'file', mediaType: 'image/png', data: { base64: base64(small) } },
          { type: 'file', mediaType: 'image/png', filename: 'big.png', data: { base64: base64(screenshot) } },
        ],
      },
    ];
    const result = await claudeTurn({ input });
    expect(result.status).toBe('completed');
    expect(bodyOf(0).messages[0]?.content).toEqual([
      { type: 'text', text: 'What is on these?' },
      imageBlock(small),
      imageBlock(screenshot),
    ]);
    const started = result.events.find((e) => e.type === 'turn.started');
    const recorded = started?.type === 'turn.started' ? started.input[0] : undefined;
    expect(recorded).toMatchObject({
      role: 'user',
      content: [
        { type: 'text' },
        { type: 'file', data: { base64: base64(small) } },
        {
          type: 'file',
          filename: 'big.png',
          data: { blob: { bytes: screenshot.length, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) } },
        },
      ],
    });
    expect(JSON.stringify(result.events).length).toBeLessThan(screenshot.length / 10);
  });

  it("gives a tool's screenshot back to the model in its tool result, kept by reference", async () => {
    const result = await claudeTurn({
      input: [{ role: 'user', content: 'Look at home' }],
      tools: [screenshotTool(screenshot)],
    });
    expect(result.status).toBe('completed');
    expect(result.outputs[0]).toMatchObject({
      status: 'ok',
      content: 'The page home',
      files: [
        {
          type: 'file',
          mediaType: 'image/png',
          filename: 'page.png',
          data: { blob: { bytes: screenshot.length } },
        },
      ],
    });
    const toolResult = bodyOf(1).messages[2]?.content[0];
    expect(toolResult).toMatchObject({
      type: 'tool_result',
      tool_use_id: 'toolu_1',
      content: [{ type: 'text', text: 'The page home' }, imageBlock(screenshot)],
    });
  });

  it('a tool file over the per-file limit becomes an error output saying so; the turn goes on', async () => {
    const result = await claudeTurn({
      input: [{ role: 'user', content: 'Look at home' }],
      tools: [screenshotTool(screenshot)],
      options: { fileLimits: { maxFileBytes: 100 * 1024 } },
    });
    expect(result.status).toBe('completed');
    expect(result.outputs[0]).toMatchObject({
      status: 'error',
      errorType: 'file-too-large',
      content:
        'file 1 (image/png) is 512.0 KB (512000 bytes), over the limit of 102.4 KB (102400 bytes) per file (maxFileBytes)',
    });
  });

  it('a large tool file with no blob store to keep it becomes an error output saying so', async () => {
    const result = await claudeTurn({
      input: [{ role: 'user', content: 'Look at home' }],
      tools: [screenshotTool(screenshot)],
      options: { blobStore: false },
    });
    expect(result.outputs[0]).toMatchObject({ status: 'error', errorType: 'file-not-stored' });
    expect(String(result.outputs[0]?.content)).toContain('this host has no blob store');
    expect(result.status).toBe('completed');
  });

  it("refuses a caller's file over the limit before the turn starts, naming the part", async () => {
    await expect(
      claudeTurn({
        input: [
          {
            role: 'user',
            content: [{ type: 'file', mediaType: 'image/png', data: { base64: base64(screenshot) } }],
          },
        ],
        options: { fileLimits: { maxFileBytes: 100 * 1024 } },
      }),
    ).rejects.toThrow(
      'invalid turn input: input message 1, part 1 (image/png) is 512.0 KB (512000 bytes), over the limit of 102.4 KB (102400 bytes) per file (maxFileBytes)',
    );
    expect(server?.requests).toHaveLength(0);
  });

  it('a file the provider cannot take fails the turn with a clear reason before anything is sent, naming the part', async () => {
    server = await startOpenAiChatServer([{ kind: 'stream', text: ['never'] }]);
    const executor = new InProcessExecutor({
      tools: [],
      model: compatibleAt(server.baseURL),
      blobStore: false,
      modelRetry: { maxAttempts: 3 },
    });
    const result = await executor.runTurn({
      turnId: `files-unsupported-${Date.now()}`,
      input: [
        {
          role: 'user',
          content: [
            {
              type: 'file',
              mediaType: 'application/zip',
              filename: 'a.zip',
              data: { base64: base64(small) },
            },
          ],
        },
      ],
    });
    expect(result.status).toBe('failed');
    expect(result.reason).toContain('cannot take');
    expect(result.reason).toContain('[application/zip a.zip, 2.0 KB] (message 1)');
    expect(server.requests).toHaveLength(0);
  });

  it('a file by URL goes to the provider as a URL where it takes one; where it does not, the turn fails before sending, and durable-turns never fetches it', async () => {
    const url = 'https://example.com/report.pdf';
    const result = await claudeTurn({
      input: [{ role: 'user', content: [{ type: 'file', mediaType: 'application/pdf', data: { url } }] }],
    });
    expect(result.status).toBe('completed');
    expect(bodyOf(0).messages[0]?.content).toEqual([{ type: 'document', source: { type: 'url', url } }]);

    await server?.close();
    server = await startOpenAiChatServer([{ kind: 'stream', text: ['never'] }]);
    const executor = new InProcessExecutor({
      tools: [],
      model: compatibleAt(server.baseURL),
      blobStore: false,
    });
    const refused = await executor.runTurn({
      turnId: `files-url-${Date.now()}`,
      input: [{ role: 'user', content: [{ type: 'file', mediaType: 'application/pdf', data: { url } }] }],
    });
    expect(refused.status).toBe('failed');
    expect(refused.reason).toContain(`does not take [application/pdf at ${url}] (message 1) by URL`);
    expect(server.requests).toHaveLength(0);
  });

  it('a tool’s file for a Chat Completions API fails the turn before sending (its tool messages hold text only); the Responses API gets it as an image', async () => {
    server = await startOpenAiChatServer([
      {
        kind: 'stream',
        toolCalls: [{ id: 'call_1', name: 'screenshot', argumentChunks: ['{"page":"home"}'] }],
      },
      { kind: 'stream', text: ['never'] },
    ]);
    const chat = new InProcessExecutor({
      tools: [screenshotTool(small)],
      model: createModel(
        { provider: 'openai', api: 'chat', name: 'gpt', model: 'gpt-4o', baseURL: server.baseURL },
        { env: { OPENAI_API_KEY: 'sk-test-0123456789' } },
      ),
      blobStore: false,
    });
    const refused = await chat.runTurn({ turnId: `files-chat-${Date.now()}`, input: 'Look at home' });
    expect(refused.status).toBe('failed');
    expect(refused.reason).toContain(
      'openai.chat cannot take files in tool results (a Chat Completions tool message holds text only): [image/png page.png, 2.0 KB] (message 3, output of call_1)',
    );
    expect(server.requests).toHaveLength(1);

    await server.close();
    server = await startOpenAiResponsesServer([
      {
        kind: 'stream',
        toolCalls: [{ callId: 'call_1', name: 'screenshot', argumentChunks: ['{"page":"home"}'] }],
      },
      { kind: 'stream', text: ['I see it.'] },
    ]);
    const responses = new InProcessExecutor({
      tools: [screenshotTool(small)],
      model: createModel(
        { provider: 'openai', api: 'responses', name: 'gpt', model: 'gpt-5', baseURL: server.baseURL },
        { env: { OPENAI_API_KEY: 'sk-test-0123456789' } },
      ),
      blobStore: false,
    });
    expect(
      (await responses.runTurn({ turnId: `files-responses-${Date.now()}`, input: 'Look at home' })).status,
    ).toBe('completed');
    const input =
      (server.requests[1]?.body as { input?: Record<string, unknown>[] } | undefined)?.input ?? [];
    expect(input.at(-1)).toEqual({
      type: 'function_call_output',
      call_id: 'call_1',
      output: [
        { type: 'input_text', text: 'The page home' },
        { type: 'input_image', image_url: `data:image/png;base64,${base64(small)}` },
      ],
    });
  });
});
