import type {
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import { PEER_FINAL_TEXT, peerBatches } from './peer-script';

const ZERO_USAGE: LanguageModelV4Usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

/** The peer script as AI SDK `doGenerate` results, one per step. */
export function generateResults(): LanguageModelV4GenerateResult[] {
  const toolSteps = peerBatches().map(
    (batch): LanguageModelV4GenerateResult => ({
      content: batch.map(
        (c): LanguageModelV4Content => ({
          type: 'tool-call',
          toolCallId: c.id,
          toolName: 'noop',
          input: JSON.stringify(c.args),
        }),
      ),
      finishReason: { unified: 'tool-calls', raw: undefined },
      usage: ZERO_USAGE,
      warnings: [],
    }),
  );
  return [
    ...toolSteps,
    {
      content: [{ type: 'text', text: PEER_FINAL_TEXT }],
      finishReason: { unified: 'stop', raw: undefined },
      usage: ZERO_USAGE,
      warnings: [],
    },
  ];
}

/** The peer script as AI SDK stream parts, one array per step. */
export function streamSteps(): LanguageModelV4StreamPart[][] {
  const toolSteps = peerBatches().map((batch): LanguageModelV4StreamPart[] => [
    { type: 'stream-start', warnings: [] },
    ...batch.map(
      (c): LanguageModelV4StreamPart => ({
        type: 'tool-call',
        toolCallId: c.id,
        toolName: 'noop',
        input: JSON.stringify(c.args),
      }),
    ),
    { type: 'finish', finishReason: { unified: 'tool-calls', raw: undefined }, usage: ZERO_USAGE },
  ]);
  return [
    ...toolSteps,
    [
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: PEER_FINAL_TEXT },
      { type: 'text-end', id: 't' },
      { type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage: ZERO_USAGE },
    ],
  ];
}
