import {
  defineTool,
  isTranscriptEvent,
  type ScriptedPart,
  scriptedModel,
  type TurnModel,
  type TurnWatchEvent,
} from 'durable-turns';
import { z } from 'zod';
import type { ConformanceHarness } from '../conformance/harness';
import { inProcessHarness } from '../conformance/in-process-harness';
import { uniqueTurnId } from '../conformance/support';
import { closeTemporalHarness, openTemporalHarness, temporalHarness } from '../conformance/temporal-harness';
import { collect, entriesOf, shownText } from '../conformance/watched';

beforeAll(openTemporalHarness);
afterAll(closeTemporalHarness);

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks up',
  input: z.object({ key: z.string() }),
  concurrencySafe: true,
  execute: ({ key }) => `value of ${key}`,
});

const text = (delta: string): ScriptedPart => ({ type: 'text-delta', delta, delayMs: 15 });
const finish = (reason: string): ScriptedPart => ({
  type: 'finish',
  finishReason: reason,
  usage: { inputTokens: 1, outputTokens: 1 },
});

/** A turn of two responses: reasoning, text and two calls; then a request that breaks once and an answer. */
function withCalls() {
  let asked = 0;
  return scriptedModel([
    {
      parts: [
        { type: 'reasoning-delta', delta: 'Two keys ', delayMs: 15 },
        { type: 'reasoning-delta', delta: 'to read.', delayMs: 15 },
        text('Reading '),
        text('both.'),
        { type: 'tool-call', toolCallId: 'a', toolName: 'lookup', input: JSON.stringify({ key: 'a' }) },
        { type: 'tool-call', toolCallId: 'b', toolName: 'lookup', input: JSON.stringify({ key: 'b' }) },
        finish('tool-calls'),
      ],
    },
    () => {
      asked += 1;
      return asked === 1
        ? { parts: [text('Half '), { type: 'error', message: 'connection reset', retryable: true }] }
        : { parts: [text('a and '), text('b have '), text('values.'), finish('stop')] };
    },
  ]);
}

/** A turn of one response, with reasoning, whose request breaks once. */
function withoutCalls() {
  let asked = 0;
  return scriptedModel([
    () => {
      asked += 1;
      return asked === 1
        ? { parts: [text('Half '), { type: 'error', message: 'connection reset', retryable: true }] }
        : {
            parts: [
              { type: 'reasoning-delta', delta: 'Easy.', delayMs: 15 },
              text('The '),
              text('answer.'),
              finish('stop'),
            ],
          };
    },
  ]);
}

async function watched(harness: ConformanceHarness, model: TurnModel): Promise<TurnWatchEvent[]> {
  const turn = await harness.start({
    turnId: uniqueTurnId(`watch-same-${harness.name}`),
    input: 'go',
    tools: [lookup],
    model,
    modelRetry: { maxAttempts: 3, initialDelayMs: 20 },
  });
  const [events] = await Promise.all([collect(turn.watch()), turn.result]);
  return events;
}

const numbered = (events: TurnWatchEvent[]) =>
  entriesOf(events).map(({ seq, entry }) => `${seq}:${entry.type}`);

test('watch yields the same entries, numbered the same, and the same text on both executors', async () => {
  const inProcess = await watched(inProcessHarness, withoutCalls());
  const onTemporal = await watched(temporalHarness, withoutCalls());
  expect(numbered(onTemporal)).toEqual(numbered(inProcess));
  expect(shownText(onTemporal)).toEqual(shownText(inProcess));
  expect(shownText(inProcess).get(0)).toEqual({ text: 'The answer.', reasoning: 'Easy.' });
});

test('with calls, watch yields the same text per response and the same transcript entries on both executors', async () => {
  // Calls complete in a stream are handed over as each host can (in process at once, on Temporal
  // by Update), so when they are accepted and started may differ; what the turn recorded may not.
  const inProcess = await watched(inProcessHarness, withCalls());
  const onTemporal = await watched(temporalHarness, withCalls());
  const transcript = (events: TurnWatchEvent[]) =>
    entriesOf(events)
      .map(({ entry }) => entry)
      .filter(isTranscriptEvent)
      .map((entry) => entry.type);
  expect(transcript(onTemporal)).toEqual(transcript(inProcess));
  expect(shownText(onTemporal)).toEqual(shownText(inProcess));
  expect(shownText(inProcess).get(1)).toEqual({ text: 'a and b have values.', reasoning: '' });
});
