import type {
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import { generateText, type StepResult, stepCountIs, streamText, type ToolSet, tool } from 'ai';
import { MockLanguageModelV4, simulateReadableStream } from 'ai/test';
import { z } from 'zod';
import { check, type Trial } from '../measure';
import { ExecutionCounter, NOOP_RESULT } from '../noop';
import { PEER_FINAL_TEXT, PEER_INPUT, PEER_MODEL_RESPONSES, PEER_TOOL_CALLS, peerBatches } from './script';

const ZERO_USAGE: LanguageModelV4Usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

/** The peer script as AI SDK `doGenerate` results, one per step. */
function generateResults(): LanguageModelV4GenerateResult[] {
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
function streamSteps(): LanguageModelV4StreamPart[][] {
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

/** A step limit above the script's length: the turn ends because the model answered in text. */
const STEP_LIMIT = PEER_MODEL_RESPONSES + 2;

/** Defined once, as an application would; each trial resets the count. */
const counter = new ExecutionCounter();
const tools = {
  noop: tool({
    description: 'Does nothing and answers "ok".',
    inputSchema: z.object({ i: z.number() }),
    execute: async () => {
      counter.count += 1;
      return NOOP_RESULT;
    },
  }),
} satisfies ToolSet;

type NoopTools = typeof tools;

function verifySteps(
  label: string,
  steps: StepResult<NoopTools>[] | undefined,
  text: string | undefined,
): void {
  check(steps?.length === PEER_MODEL_RESPONSES, `${label}: ${steps?.length} steps`);
  check(text === PEER_FINAL_TEXT, `${label}: final text ${JSON.stringify(text)}`);
  check(counter.count === PEER_TOOL_CALLS, `${label}: ${counter.count} of ${PEER_TOOL_CALLS} tools executed`);
  const results = steps.flatMap((s) => s.toolResults);
  check(
    results.length === PEER_TOOL_CALLS && results.every((r) => r.output === NOOP_RESULT),
    `${label}: every call has a result`,
  );
}

/** The peer turn through `generateText` (the SDK's non-streaming multi-step loop). */
export function aiSdkGenerateTrial(): Trial {
  counter.count = 0;
  const model = new MockLanguageModelV4({ doGenerate: generateResults() });
  let result: Awaited<ReturnType<typeof generateText<NoopTools>>> | undefined;
  return {
    run: async () => {
      result = await generateText({ model, tools, prompt: PEER_INPUT, stopWhen: stepCountIs(STEP_LIMIT) });
    },
    verify: () => verifySteps('aiSdk', result?.steps, result?.text),
  };
}

/** The peer turn through `streamText`, the closer analogue of ours (which streams every response). */
export function aiSdkStreamTrial(): Trial {
  counter.count = 0;
  const steps = streamSteps();
  const model = new MockLanguageModelV4({
    doStream: async () => {
      const chunks = steps[model.doStreamCalls.length - 1];
      if (!chunks) throw new Error('aiSdkStream: the SDK asked for more responses than scripted');
      return { stream: simulateReadableStream({ chunks, initialDelayInMs: null, chunkDelayInMs: null }) };
    },
  });
  let finished: { steps: StepResult<NoopTools>[]; text: string } | undefined;
  return {
    run: async () => {
      const result = streamText({ model, tools, prompt: PEER_INPUT, stopWhen: stepCountIs(STEP_LIMIT) });
      await result.consumeStream();
      finished = { steps: await result.steps, text: await result.text };
    },
    verify: () => verifySteps('aiSdkStream', finished?.steps, finished?.text),
  };
}
