import type { UIMessage, UIMessageChunk } from 'ai';
import {
  type AssistantMessage,
  type JournalEntry,
  type PreparedCall,
  retryPolicySchema,
  type TurnWatchEvent,
} from 'durable-turns';
import { LiveTextAssembler } from '../core/watch/live-text-assembler';
import { visibleParts } from './read-ui-message';
import { type PositionedChunk, positionedUiChunks } from './turn-ui-chunks';
import { readEventId, turnUiStreamResponse } from './turn-ui-stream-response';
import { encodePosition } from './ui-stream-position';

/**
 * A turn as it happens: journal entries, and looks at a response while it streams (a model
 * activity's heartbeat on Temporal), each of some attempt `stream`, with the text so far.
 */
type Step =
  | { entry: JournalEntry }
  | { look: { responseIndex: number; stream: string; text: string; reasoning: string } };

const call = (toolCallId: string, toolName: string, requiresApproval: boolean): PreparedCall => ({
  toolCallId,
  toolName,
  input: { path: 'a' },
  policy: {
    concurrencySafe: !requiresApproval,
    retrySafe: !requiresApproval,
    requiresApproval,
    resources: [],
    retry: retryPolicySchema.parse({}),
  },
});
const read = call('c1', 'read_file', false);
const deploy = call('c2', 'deploy', true);
const said = (text: string, reasoning = ''): AssistantMessage => ({
  role: 'assistant',
  content: [...(reasoning ? [{ type: 'reasoning' as const, text: reasoning }] : []), { type: 'text', text }],
});
const look = (responseIndex: number, stream: string, text: string, reasoning = ''): Step => ({
  look: { responseIndex, stream, text, reasoning },
});

/** Calls that start before the text shows, an attempt given up mid-stream, an approval refused. */
const turn: Step[] = [
  { entry: { type: 'turn.started', turnId: 't', input: [{ role: 'user', content: 'read a' }] } },
  { entry: { type: 'model.requested', responseIndex: 0 } },
  { entry: { type: 'model.call_accepted', responseIndex: 0, call: read } },
  { entry: { type: 'tool.attempt_started', toolCallId: 'c1', attempt: 1, at: 1 } },
  look(0, 'a1', 'Let me ', 'think'),
  look(0, 'a1', 'Let me read', 'thinking hard'),
  look(0, 'a2', 'I will'),
  look(0, 'a2', 'I will read a.', 'plan'),
  { entry: { type: 'model.response_ended', responseIndex: 0, at: 2 } },
  {
    entry: {
      type: 'model.responded',
      responseIndex: 0,
      message: said('I will read a.', 'plan'),
      calls: [read, deploy],
      usage: { inputTokens: 1, outputTokens: 1 },
      finishReason: 'tool-calls',
    },
  },
  {
    entry: {
      type: 'tool.attempt_finished',
      toolCallId: 'c1',
      attempt: 1,
      result: { status: 'ok', content: 'a says hi', resultHash: 'h' },
      at: 3,
      durationMs: 2,
    },
  },
  {
    entry: {
      type: 'tool.completed',
      toolCallId: 'c1',
      output: { status: 'ok', content: 'a says hi', attempts: 1 },
    },
  },
  { entry: { type: 'tool.approval_requested', toolCallId: 'c2', at: 3 } },
  { entry: { type: 'tool.approval_decided', toolCallId: 'c2', approved: false, reason: 'not now' } },
  {
    entry: {
      type: 'tool.completed',
      toolCallId: 'c2',
      output: { status: 'error', content: 'rejected: not now', attempts: 0, errorType: 'rejected' },
    },
  },
  { entry: { type: 'model.requested', responseIndex: 1 } },
  look(1, 'b1', 'Done'),
  look(1, 'b1', 'Done: a says'),
  {
    entry: {
      type: 'model.responded',
      responseIndex: 1,
      message: said('Done: a says hi.'),
      calls: [],
      usage: { inputTokens: 1, outputTokens: 1 },
      finishReason: 'stop',
    },
  },
  { entry: { type: 'turn.finished', status: 'completed' } },
];

/**
 * What a watcher that starts after step `from` sees, as both executors' watches make it: every
 * entry from the turn's start (each response's text whole before its record, unless it was seen
 * streaming), then the latest look at a response still streaming — as a tail of at most `tail`
 * characters, as a heartbeat carries it — then the rest as it happens. Each event says how many
 * steps had happened when it was seen.
 */
function* watchFrom(
  from: number,
  { tail = Number.POSITIVE_INFINITY } = {},
): Generator<{ event: TurnWatchEvent; steps: number }> {
  const assembler = new LiveTextAssembler();
  let seq = 0;
  const lookAt = ({ look }: Extract<Step, { look: unknown }>) => {
    const tailOf = (text: string) => {
      const start = Math.max(0, text.length - tail);
      return { from: start, tail: text.slice(start) };
    };
    return assembler.snapshot({
      stream: look.stream,
      details: {
        responseIndex: look.responseIndex,
        text: tailOf(look.text),
        reasoning: tailOf(look.reasoning),
      },
    });
  };
  const entry = (value: JournalEntry): TurnWatchEvent[] => [
    ...(value.type === 'model.responded'
      ? assembler.complete({ responseIndex: value.responseIndex, message: value.message })
      : []),
    { kind: 'entry', seq: ++seq, entry: value },
  ];
  let latest: Extract<Step, { look: unknown }> | undefined;
  for (const step of turn.slice(0, from)) {
    if ('entry' in step) {
      for (const event of entry(step.entry)) yield { event, steps: from };
      if (step.entry.type === 'model.responded') latest = undefined;
    } else latest = step;
  }
  if (latest) for (const event of lookAt(latest)) yield { event, steps: from };
  for (const [index, step] of turn.entries()) {
    if (index < from) continue;
    for (const event of 'entry' in step ? entry(step.entry) : lookAt(step)) yield { event, steps: index + 1 };
  }
}

/** The live stream's chunks, each with the steps its watcher had seen when it was sent. */
async function live(): Promise<(PositionedChunk & { steps: number })[]> {
  let steps = 0;
  async function* watch() {
    for (const seen of watchFrom(0)) {
      steps = seen.steps;
      yield seen.event;
    }
  }
  const chunks: (PositionedChunk & { steps: number })[] = [];
  for await (const chunk of positionedUiChunks(watch(), { messageId: 'm' })) chunks.push({ ...chunk, steps });
  return chunks;
}

/** The message an `EventSource`-like client holds after reading these chunks as one stream. */
async function messageOf(chunks: UIMessageChunk[]): Promise<UIMessage> {
  const { readUIMessageStream } = await import('ai');
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let last: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream({ stream })) last = snapshot;
  if (!last) throw new Error('no message');
  return last;
}

/**
 * What a person sees, by kind: the visible text and reasoning parts in order, each call's part, the
 * outcome. (Where a watcher that missed text places it beside the calls may differ; not what it says.)
 */
function shown(message: UIMessage) {
  const parts = visibleParts(message);
  const of = (type: string) =>
    parts.flatMap((part) => (part.type === type && 'text' in part ? [`${part.text}|${part.state}`] : []));
  return {
    text: of('text'),
    reasoning: of('reasoning'),
    calls: parts.filter((part) => part.type === 'dynamic-tool'),
    steps: parts.filter((part) => part.type === 'step-start').length,
    outcome: parts.filter((part) => part.type === 'data-outcome'),
  };
}

/** The chunks that are not live text, in order: each is sent once, however the stream was read. */
function notText(chunks: UIMessageChunk[]): string[] {
  return chunks
    .filter((chunk) => !/^(text|reasoning)-|^data-retracted$/.test(chunk.type))
    .map((chunk) => JSON.stringify(chunk));
}

async function resumed(after: PositionedChunk['position'], from: number, tail?: number) {
  async function* watch() {
    for (const { event } of watchFrom(from, tail === undefined ? {} : { tail })) yield event;
  }
  const chunks: UIMessageChunk[] = [];
  for await (const { chunk } of positionedUiChunks(watch(), { messageId: 'm', after })) chunks.push(chunk);
  return chunks;
}

test('a client that reconnects after any event, to a watch begun then or at the end, holds the message one unbroken stream makes', async () => {
  const stream = await live();
  const wholeMessage = await messageOf(stream.map(({ chunk }) => chunk));
  const whole = shown(wholeMessage);
  let checked = 0;
  for (const [index, { steps, position }] of stream.entries()) {
    const had = stream.slice(0, index + 1).map(({ chunk }) => chunk);
    for (const from of new Set([steps, turn.length]))
      for (const tail of [undefined, 4]) {
        const rest = await resumed(position, from, tail);
        const message = await messageOf([...had, ...rest]);
        if (
          process.env.DEBUG_RESUME &&
          JSON.stringify(shown(message)) !== JSON.stringify(shown(wholeMessage))
        )
          console.log(
            index,
            from,
            tail,
            JSON.stringify(stream[index]?.chunk),
            encodePosition(position),
            JSON.stringify(rest),
            JSON.stringify(shown(message)),
          );
        expect({ index, from, tail, parts: shown(message), sent: notText([...had, ...rest]) }).toEqual({
          index,
          from,
          tail,
          parts: whole,
          sent: notText(stream.map(({ chunk }) => chunk)),
        });
        checked++;
      }
  }
  expect(checked).toBeGreaterThan(4 * 30);
});

test('a stream that ended at a pause, resumed after its finish, does not end at that pause again: it sends what follows the decision', async () => {
  const events = async function* () {
    for (const { event } of watchFrom(turn.length)) yield event;
  };
  const paused: PositionedChunk[] = [];
  for await (const chunk of positionedUiChunks(events(), { messageId: 'm', endAtPause: { from: 0 } }))
    paused.push(chunk);
  const last = paused.at(-1);
  expect(last?.chunk).toEqual({ type: 'finish', finishReason: 'tool-calls' });
  const rest: UIMessageChunk[] = [];
  const after = last?.position;
  for await (const { chunk } of positionedUiChunks(events(), {
    messageId: 'm',
    endAtPause: { from: 0 },
    ...(after ? { after } : {}),
  }))
    rest.push(chunk);
  expect(rest.slice(0, 2)).toEqual([
    { type: 'tool-approval-response', approvalId: 'c2', approved: false, reason: 'not now' },
    { type: 'tool-output-denied', toolCallId: 'c2' },
  ]);
  expect(rest.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
});

test('an event id is read back as the position it was made from; one this stream did not make is refused, and one after the finish is answered 204', async () => {
  const stream = await live();
  for (const { position } of stream)
    expect(readEventId(`7/${encodePosition(position)}`, '7/')).toEqual(position);
  for (const id of [
    '',
    '1.2',
    '2.0.0.-1.0.-1.-',
    '1.0.0.-1.0.-1.x',
    `8/${encodePosition(stream[3]?.position ?? ({} as never))}`,
  ])
    expect(readEventId(id, '7/')).toHaveProperty('invalid');
  const watch = async function* () {};
  const refused = turnUiStreamResponse({ watch, messageId: 'm', lastEventId: 'nonsense' });
  expect(refused.status).toBe(400);
  expect(await refused.json()).toEqual({
    error: expect.stringContaining('is not an event id of this stream'),
  });
  const last = stream.at(-1)?.position;
  const ended = turnUiStreamResponse({ watch, messageId: 'm', lastEventId: last && encodePosition(last) });
  expect(ended.status).toBe(204);
});
