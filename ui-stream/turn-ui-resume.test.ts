import type { UIMessageChunk } from 'ai';
import type { AssistantMessage, JournalEntry, PreparedCall, TurnWatchEvent } from 'durable-turns';
import {
  call,
  live,
  messageOf,
  notText,
  resumed,
  type Step,
  said,
  shown,
  watchFrom,
} from '../test/ui-stream/resume-steps';
import { type PositionedChunk, positionedUiChunks } from './turn-ui-chunks';
import { readEventId, turnUiStreamResponse } from './turn-ui-stream-response';
import { encodePosition } from './ui-stream-position';

const read = call('c1', 'read_file', false);
const deploy = call('c2', 'deploy', true);
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

test('a client that reconnects after any event, to a watch begun then or at the end, holds the message one unbroken stream makes', async () => {
  const stream = await live(turn);
  const whole = shown(await messageOf(stream.map(({ chunk }) => chunk)));
  let checked = 0;
  for (const [index, { steps, position }] of stream.entries()) {
    const had = stream.slice(0, index + 1).map(({ chunk }) => chunk);
    for (const from of new Set([steps, turn.length]))
      for (const tail of [undefined, 4]) {
        const rest = await resumed(turn, position, from, tail);
        const message = await messageOf([...had, ...rest]);
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
    for (const { event } of watchFrom(turn, turn.length)) yield event;
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
  const stream = await live(turn);
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

/** Runs the stream over these events to their end, or until it has waited `quietMs` for more. */
async function chunksOf(
  events: TurnWatchEvent[],
  options: Parameters<typeof positionedUiChunks>[1],
  { open = false } = {},
): Promise<{ chunks: PositionedChunk[]; waiting: boolean }> {
  const quiet = new AbortController();
  let waiting = false;
  async function* watch() {
    yield* events;
    // A turn that goes on: the watch stays open until the test has seen the stream wait.
    if (open) await new Promise((resolve) => quiet.signal.addEventListener('abort', resolve));
  }
  const chunks: PositionedChunk[] = [];
  const stream = positionedUiChunks(watch(), options);
  for (;;) {
    const next = await Promise.race([
      stream.next(),
      new Promise<'waiting'>((resolve) => setTimeout(() => resolve('waiting'), 100)),
    ]);
    if (next === 'waiting') {
      waiting = true;
      quiet.abort();
      continue;
    }
    if (next.done) return { chunks, waiting };
    chunks.push(next.value);
  }
}

const entries = (list: JournalEntry[], from = 1): TurnWatchEvent[] =>
  list.map((entry, index) => ({ kind: 'entry', seq: from + index, entry }));
const begun: JournalEntry[] = [
  { type: 'turn.started', turnId: 't', input: [{ role: 'user', content: 'x' }] },
  { type: 'model.requested', responseIndex: 0 },
];
const responded = (message: AssistantMessage, calls: PreparedCall[] = []): JournalEntry => ({
  type: 'model.responded',
  responseIndex: 0,
  message,
  calls,
  usage: { inputTokens: 1, outputTokens: 1 },
  finishReason: calls.length > 0 ? 'tool-calls' : 'stop',
});

test('a client that has everything before a pause’s finish but the finish gets the finish, and the stream ends', async () => {
  const journal = entries([
    ...begun,
    { type: 'model.response_ended', responseIndex: 0, at: 1 },
    responded(said('ok'), [deploy]),
    { type: 'tool.approval_requested', toolCallId: 'c2', at: 2 },
  ]);
  const first = await chunksOf(journal, { messageId: 'm', endAtPause: { from: 0 } }, { open: true });
  const before = first.chunks.at(-2);
  expect(first.chunks.at(-1)?.chunk).toEqual({ type: 'finish', finishReason: 'tool-calls' });
  if (!before) throw new Error('chunks before the finish');
  const rest = await chunksOf(
    journal,
    { messageId: 'm', endAtPause: { from: journal.length }, after: before.position },
    { open: true },
  );
  expect(rest).toEqual({
    chunks: [expect.objectContaining({ chunk: { type: 'finish', finishReason: 'tool-calls' } })],
    waiting: false,
  });
});

test('a part the client never started (text was missed before any showed) is not ended or continued on resume, however short the final text', async () => {
  for (const final of [
    said('Hello world'),
    said('Hello world', 'k'),
    { role: 'assistant' as const, content: [] },
  ]) {
    const head = entries([...begun, { type: 'model.call_accepted', responseIndex: 0, call: read }]);
    const { chunks: had } = await chunksOf(
      [
        ...head,
        { kind: 'gap', responseIndex: 0, channel: 'reasoning', offset: 0, length: 10 },
        { kind: 'delta', responseIndex: 0, channel: 'reasoning', offset: 10, delta: 'more' },
        { kind: 'delta', responseIndex: 0, channel: 'text', offset: 0, delta: 'Hello' },
      ],
      { messageId: 'm' },
    );
    const last = had.at(-1);
    if (!last) throw new Error('chunks');
    const reasoning = final.content.find((part) => part.type === 'reasoning');
    const { chunks: rest } = await chunksOf(
      [
        ...head,
        ...entries([{ type: 'model.response_ended', responseIndex: 0, at: 1 }], 4),
        ...(reasoning && 'text' in reasoning
          ? [
              {
                kind: 'delta',
                responseIndex: 0,
                channel: 'reasoning',
                offset: 0,
                delta: reasoning.text,
              } as const,
            ]
          : []),
        ...entries([responded(final, [read]), { type: 'turn.finished', status: 'completed' }], 5),
      ],
      { messageId: 'm', after: last.position },
    );
    const message = await messageOf([...had, ...rest].map(({ chunk }) => chunk));
    expect(shown(message).reasoning).toEqual(
      reasoning && 'text' in reasoning ? [`${reasoning.text}|done`] : [],
    );
  }
});

test('an empty Last-Event-ID is no id: the message from its start', async () => {
  const response = turnUiStreamResponse({ watch: async function* () {}, messageId: 'm', lastEventId: '' });
  expect(response.status).toBe(200);
  expect(await response.text()).toMatch(/^id: [^\n]+\ndata: {"type":"start","messageId":"m"}/);
});
