import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createModel, defineTool, InProcessExecutor, type TurnModel, type TurnResult } from 'durable-turns';
import { parseEncryptionKeys } from 'durable-turns/codec';
import { SqliteJournal } from 'durable-turns/sqlite';
import { z } from 'zod';
import {
  type AnthropicReply,
  claudeAt,
  compatibleAt,
  extendedThinking,
  type OpenAiResponsesReply,
  startAnthropicServer,
  startOpenAiChatServer,
  startOpenAiResponsesServer,
  type TestServer,
} from '../support/models';
import { readFileTool } from '../support/models/wire-test-kit';

/**
 * A reasoning model's reasoning crosses a tool round trip as the provider requires, over real HTTP
 * through the AI SDK's providers: Anthropic wants each thinking block back first in the assistant
 * message, unmodified, with its signature (and redacted blocks with their data); the OpenAI
 * Responses API with `store: false` wants the reasoning item back with its encrypted content;
 * Gemini (through its OpenAI-compatible API) wants each function call's thought signature back.
 */
describe('reasoning carried back across a tool round trip', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function turn(model: TurnModel): Promise<TurnResult> {
    const executor = new InProcessExecutor({
      tools: [readFileTool],
      model,
      modelRetry: { maxAttempts: 1 },
    });
    return executor.runTurn({ turnId: `reasoning-${Date.now()}`, input: 'Read a.txt' });
  }

  const anthropicTurn = async (first: AnthropicReply) => {
    server = await startAnthropicServer([first, { kind: 'stream', text: ['Done.'] }]);
    return turn(claudeAt(server.baseURL, { providerOptions: extendedThinking }));
  };
  const requestBody = (index: number) => {
    const body = server?.requests[index]?.body;
    if (typeof body !== 'object' || body === null) throw new Error(`no request #${index}`);
    return body as Record<string, unknown>;
  };
  const readCall = { id: 'toolu_01', name: 'read_file', inputChunks: ['{"path":', '"a.txt"}'] };

  it('Anthropic extended thinking with a tool call: the second request starts the assistant message with the thinking block and its signature, then the tool_use', async () => {
    const signature = 'EqQBCkgIARABGAIiQL2U/signature+from+Anthropic==';
    const result = await anthropicTurn({
      kind: 'stream',
      thinking: ['The user wants ', 'a.txt read.'],
      signature,
      toolUses: [readCall],
    });
    expect(result.status).toBe('completed');
    expect(requestBody(0).thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
    const messages = requestBody(1).messages as { role: string; content: Record<string, unknown>[] }[];
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[1]?.content).toEqual([
      { type: 'thinking', thinking: 'The user wants a.txt read.', signature },
      { type: 'tool_use', id: 'toolu_01', name: 'read_file', input: { path: 'a.txt' } },
    ]);
    expect(messages[2]?.content).toEqual([
      expect.objectContaining({ type: 'tool_result', tool_use_id: 'toolu_01' }),
    ]);
    // The transcript keeps the signature with the reasoning it signs.
    expect(result.transcript[0]).toMatchObject({
      role: 'assistant',
      content: [
        {
          type: 'reasoning',
          text: 'The user wants a.txt read.',
          providerMetadata: { anthropic: { signature } },
        },
        { type: 'tool-call', toolCallId: 'toolu_01' },
      ],
    });
  });

  it('the signature survives an encrypted SQLite journal: a turn read back from it holds the signed reasoning', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'durable-turns-reasoning-'));
    try {
      const encryption = parseEncryptionKeys(`k0:${randomBytes(32).toString('base64')}`);
      const journal = new SqliteJournal({ path: path.join(dir, 'turns.sqlite'), encryption });
      server = await startAnthropicServer([
        { kind: 'stream', thinking: ['Plan.'], signature: 'sig-journal', toolUses: [readCall] },
        { kind: 'stream', text: ['Done.'] },
      ]);
      const executor = new InProcessExecutor({
        tools: [readFileTool],
        model: claudeAt(server.baseURL),
        journal,
      });
      const turnId = `reasoning-journal-${Date.now()}`;
      expect((await executor.runTurn({ turnId, input: 'Read a.txt' })).status).toBe('completed');
      const reopened = new SqliteJournal({ path: path.join(dir, 'turns.sqlite'), encryption });
      const session = await reopened.open({ turnId, owner: 'reader', leaseMs: 1_000 });
      const { entries } = await session.load();
      await session.release();
      const responded = entries.find((e) => e.type === 'model.responded');
      expect(responded?.type === 'model.responded' && responded.message.content[0]).toEqual({
        type: 'reasoning',
        text: 'Plan.',
        providerMetadata: { anthropic: { signature: 'sig-journal' } },
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('Anthropic blocks that are only metadata go back too: a signed thinking block with no text, a redacted_thinking block with its data', async () => {
    const result = await anthropicTurn({
      kind: 'stream',
      thinking: [],
      signature: 'sig-of-empty-thinking',
      redactedThinking: 'EmwKAhgBEgy3va3pzix/opaque==',
      toolUses: [readCall],
    });
    expect(result.status).toBe('completed');
    const messages = requestBody(1).messages as { role: string; content: Record<string, unknown>[] }[];
    expect(messages[1]?.content).toEqual([
      { type: 'thinking', thinking: '', signature: 'sig-of-empty-thinking' },
      { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/opaque==' },
      { type: 'tool_use', id: 'toolu_01', name: 'read_file', input: { path: 'a.txt' } },
    ]);
  });

  it('OpenAI Responses with store: false: the second request sends the reasoning item back, with its id, summary and encrypted content, before the call it led to', async () => {
    const encryptedContent = 'gAAAAABpExampleEncryptedReasoning==';
    const script: OpenAiResponsesReply[] = [
      {
        kind: 'stream',
        reasoning: { id: 'rs_01', summary: [['Need ', 'the file.'], ['Then answer.']], encryptedContent },
        toolCalls: [{ callId: 'call_01', name: 'read_file', argumentChunks: ['{"path":"a.txt"}'] }],
      },
      { kind: 'stream', text: ['Done.'] },
    ];
    server = await startOpenAiResponsesServer(script);
    const result = await turn(
      createModel(
        {
          provider: 'openai',
          api: 'responses',
          name: 'gpt',
          model: 'gpt-5',
          baseURL: server.baseURL,
          providerOptions: { openai: { store: false, include: ['reasoning.encrypted_content'] } },
        },
        { env: { OPENAI_API_KEY: 'sk-test-0123456789' } },
      ),
    );
    expect(result.status).toBe('completed');
    expect(requestBody(0)).toMatchObject({ store: false, include: ['reasoning.encrypted_content'] });
    const input = requestBody(1).input as Record<string, unknown>[];
    expect(input.map((item) => item.type ?? item.role)).toEqual([
      'user',
      'reasoning',
      'function_call',
      'function_call_output',
    ]);
    expect(input[1]).toEqual({
      type: 'reasoning',
      id: 'rs_01',
      encrypted_content: encryptedContent,
      summary: [
        { type: 'summary_text', text: 'Need the file.' },
        { type: 'summary_text', text: 'Then answer.' },
      ],
    });
    expect(input[2]).toMatchObject({ type: 'function_call', call_id: 'call_01', name: 'read_file' });
    expect(input[3]).toMatchObject({ type: 'function_call_output', call_id: 'call_01' });
  });

  it("Gemini through the OpenAI-compatible API: a call launched while its response streamed still gets back the thought signature the provider attaches only at the stream's end", async () => {
    const started: string[] = [];
    server = await startOpenAiChatServer([
      {
        kind: 'stream',
        toolCalls: [
          {
            id: 'call_g1',
            name: 'read_file',
            argumentChunks: ['{"path":"a.txt"}'],
            thoughtSignature: 'CiQBjz1rX/thought+signature==',
          },
        ],
        // The provider finishes calls only when the stream ends; ours is handed on as soon as its
        // arguments are whole JSON, so its signature comes after it started.
      },
      { kind: 'stream', text: ['Done.'] },
    ]);
    const executor = new InProcessExecutor({
      tools: [
        defineTool({
          name: 'read_file',
          description: 'Reads a file',
          input: z.object({ path: z.string() }),
          execute: ({ path }) => {
            started.push(path);
            return `contents of ${path}`;
          },
        }),
      ],
      model: compatibleAt(server.baseURL, 'gemini'),
      modelRetry: { maxAttempts: 1 },
    });
    const result = await executor.runTurn({ turnId: `gemini-${Date.now()}`, input: 'Read a.txt' });
    expect(result.status).toBe('completed');
    expect(started).toHaveLength(1);
    const messages = requestBody(1).messages as { role: string; tool_calls?: Record<string, unknown>[] }[];
    expect(messages.find((m) => m.role === 'assistant')?.tool_calls).toEqual([
      expect.objectContaining({
        id: 'call_g1',
        extra_content: { google: { thought_signature: 'CiQBjz1rX/thought+signature==' } },
      }),
    ]);
  });
});
