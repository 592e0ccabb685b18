import { z } from 'zod';
import { defineTool } from '../tools/define-tool';
import { ToolRegistry } from '../tools/tool-registry';
import { buildModelResponse } from './build-response';
import { ResponseCollector } from './collect-response';
import type { ModelStreamPart } from './turn-model';

const finish: ModelStreamPart = {
  type: 'finish',
  finishReason: 'stop',
  usage: { inputTokens: 1, outputTokens: 1 },
};

function collect(parts: readonly ModelStreamPart[]) {
  const collector = new ResponseCollector();
  for (const part of parts) collector.add(part);
  return collector.result();
}

describe('collecting a streamed response', () => {
  it('joins deltas without block ids into one part per run of a kind (a scripted model sends no ids)', () => {
    expect(
      collect([
        { type: 'reasoning-delta', delta: 'th' },
        { type: 'reasoning-delta', delta: 'ink' },
        { type: 'text-delta', delta: 'Hel' },
        { type: 'text-delta', delta: 'lo' },
        finish,
      ]).parts,
    ).toEqual([
      { type: 'reasoning', text: 'think' },
      { type: 'text', text: 'Hello' },
    ]);
  });

  it('keeps each delimited block a part of its own, two thinking blocks in a row each with its own signature', () => {
    const signed = (signature: string) => ({ anthropic: { signature } });
    expect(
      collect([
        { type: 'reasoning-start', id: '0' },
        { type: 'reasoning-delta', id: '0', delta: 'first' },
        { type: 'reasoning-delta', id: '0', delta: '', providerMetadata: signed('s0') },
        { type: 'reasoning-end', id: '0' },
        { type: 'reasoning-start', id: '1' },
        { type: 'reasoning-delta', id: '1', delta: 'second' },
        { type: 'reasoning-delta', id: '1', delta: '', providerMetadata: signed('s1') },
        { type: 'reasoning-end', id: '1' },
        { type: 'reasoning-start', id: '2', providerMetadata: { anthropic: { redactedData: 'opaque' } } },
        { type: 'reasoning-end', id: '2' },
        finish,
      ]).parts,
    ).toEqual([
      { type: 'reasoning', text: 'first', providerMetadata: signed('s0') },
      { type: 'reasoning', text: 'second', providerMetadata: signed('s1') },
      { type: 'reasoning', text: '', providerMetadata: { anthropic: { redactedData: 'opaque' } } },
    ]);
  });

  it("gives a block the metadata last attached to it, as the AI SDK does, even when blocks' ends interleave", () => {
    // OpenAI Responses, store: false: summary part 0 ends (item id only) after part 1 has started,
    // and the encrypted content comes with the item's end.
    const item = (extra: Record<string, string> = {}) => ({ openai: { itemId: 'rs_1', ...extra } });
    expect(
      collect([
        {
          type: 'reasoning-start',
          id: 'rs_1:0',
          providerMetadata: item({ reasoningEncryptedContent: 'old' }),
        },
        { type: 'reasoning-delta', id: 'rs_1:0', delta: 'a', providerMetadata: item() },
        { type: 'reasoning-start', id: 'rs_1:1', providerMetadata: item() },
        { type: 'reasoning-end', id: 'rs_1:0', providerMetadata: item() },
        { type: 'reasoning-delta', id: 'rs_1:1', delta: 'b', providerMetadata: item() },
        { type: 'reasoning-end', id: 'rs_1:1', providerMetadata: item({ reasoningEncryptedContent: 'enc' }) },
        finish,
      ]).parts,
    ).toEqual([
      { type: 'reasoning', text: 'a', providerMetadata: item() },
      { type: 'reasoning', text: 'b', providerMetadata: item({ reasoningEncryptedContent: 'enc' }) },
    ]);
  });

  it('starts a new part when a block id comes again after its end (the OpenAI-compatible provider reuses them)', () => {
    expect(
      collect([
        { type: 'text-start', id: 'txt-0' },
        { type: 'text-delta', id: 'txt-0', delta: 'one' },
        { type: 'text-end', id: 'txt-0' },
        { type: 'text-start', id: 'txt-0' },
        { type: 'text-delta', id: 'txt-0', delta: 'two' },
        { type: 'text-end', id: 'txt-0' },
        finish,
      ]).parts,
    ).toEqual([
      { type: 'text', text: 'one' },
      { type: 'text', text: 'two' },
    ]);
  });
});

describe('building the response the engine records', () => {
  const registry = new ToolRegistry([
    defineTool({
      name: 'read_file',
      description: 'Reads',
      input: z.object({ path: z.string() }),
      execute: () => '',
    }),
  ]);

  it('drops empty text unless the provider marked it, and keeps reasoning that is only metadata', () => {
    const response = buildModelResponse({
      collected: collect([
        { type: 'text-start', id: 'a' },
        { type: 'text-end', id: 'a' },
        { type: 'text-start', id: 'b', providerMetadata: { openai: { itemId: 'msg_1' } } },
        { type: 'text-end', id: 'b' },
        { type: 'reasoning-start', id: 'c', providerMetadata: { anthropic: { redactedData: 'x' } } },
        { type: 'reasoning-end', id: 'c' },
        finish,
      ]),
      registry,
      responseIndex: 0,
    });
    expect(response.message.content).toEqual([
      { type: 'text', text: '', providerMetadata: { openai: { itemId: 'msg_1' } } },
      { type: 'reasoning', text: '', providerMetadata: { anthropic: { redactedData: 'x' } } },
    ]);
  });

  it('keeps a call’s metadata with it, and sends metadata that came after a call was handed over separately, by call id', () => {
    const signature = { google: { thoughtSignature: 'sig' } };
    const parts: ModelStreamPart[] = [
      { type: 'tool-call', toolCallId: 'early', toolName: 'read_file', input: '{"path":"a"}' },
      {
        type: 'tool-call',
        toolCallId: 'late',
        toolName: 'read_file',
        input: '{"path":"b"}',
        providerMetadata: signature,
      },
      { type: 'tool-call-metadata', toolCallId: 'early', providerMetadata: signature },
      finish,
    ];
    const collected = collect(parts);
    const early = buildModelResponse({
      collected: collect(parts.slice(0, 1)),
      registry,
      responseIndex: 0,
    }).calls;
    const response = buildModelResponse({
      collected,
      registry,
      responseIndex: 0,
      prepared: early,
      streamedCallCount: 1,
    });
    expect(response.streamedCallMetadata).toEqual({ early: signature });
    expect(response.calls).toEqual([
      expect.objectContaining({ toolCallId: 'late', providerMetadata: signature }),
    ]);
  });
});
