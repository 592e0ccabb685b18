import type { UIMessage, UIMessageChunk } from 'ai';
import { type JournalEntry, type PreparedCall, retryPolicySchema, type TurnWatchEvent } from 'durable-turns';
import { readUiMessage, visibleParts } from './read-ui-message';
import { turnUiChunks } from './turn-ui-chunks';
import { turnUiStreamResponse } from './turn-ui-stream-response';

/** The message a `useChat` client makes of these events, read with the AI SDK's own code. */
async function messageOf(events: TurnWatchEvent[]): Promise<UIMessage & { chunks: UIMessageChunk[] }> {
  async function* replay() {
    yield* events;
  }
  const { message, chunks } = await readUiMessage(
    turnUiStreamResponse({ watch: () => replay(), messageId: 'm' }),
  );
  if (!message) throw new Error('no message');
  return { ...message, chunks };
}

let seq = 0;
const entry = (value: JournalEntry): TurnWatchEvent => ({ kind: 'entry', seq: ++seq, entry: value });
const delta = (offset: number, text: string): TurnWatchEvent => ({
  kind: 'delta',
  responseIndex: 0,
  channel: 'text',
  offset,
  delta: text,
});
const requested = entry({ type: 'model.requested', responseIndex: 0 });
const responded = (text: string, calls: PreparedCall[] = []) =>
  entry({
    type: 'model.responded',
    responseIndex: 0,
    message: { role: 'assistant', content: [{ type: 'text', text }] },
    calls,
    usage: { inputTokens: 1, outputTokens: 1 },
    finishReason: calls.length > 0 ? 'tool-calls' : 'stop',
  });
const finished = (status: 'completed' | 'cancelled', reason?: string) =>
  entry({ type: 'turn.finished', status, ...(reason ? { reason } : {}) });
const texts = (parts: UIMessage['parts']) =>
  parts.flatMap((part) => (part.type === 'text' ? [`${part.text}${part.state === 'done' ? '' : '…'}`] : []));

/** Call c1 as a response records it, with the default retry policy. */
const preparedCall = ({
  toolName,
  input,
  policy,
}: Pick<PreparedCall, 'toolName' | 'input'> & {
  policy: Pick<PreparedCall['policy'], 'concurrencySafe' | 'retrySafe' | 'requiresApproval'>;
}): PreparedCall => ({
  toolCallId: 'c1',
  toolName,
  input,
  policy: { ...policy, resources: [], retry: retryPolicySchema.parse({}) },
});

test('text that no longer stands (its request was asked again) ends its part, is marked retracted, and the rest goes on in a new part', async () => {
  const message = await messageOf([
    requested,
    delta(0, 'Hel'),
    { kind: 'restart', responseIndex: 0 },
    delta(0, 'Hello there'),
    responded('Hello there'),
    finished('completed'),
  ]);
  expect(texts(message.parts)).toEqual(['Hel', 'Hello there']);
  expect(texts(visibleParts(message))).toEqual(['Hello there']);
});

test('a watcher that joined mid-response shows nothing it cannot continue, then the whole text at the end', async () => {
  const message = await messageOf([
    requested,
    { kind: 'gap', responseIndex: 0, channel: 'text', offset: 0, length: 6 },
    delta(6, 'world'),
    { kind: 'restart', responseIndex: 0 },
    delta(0, 'Hello world'),
    responded('Hello world'),
    finished('completed'),
  ]);
  expect(texts(message.parts)).toEqual(['Hello world']);
});

test('a turn cancelled mid-response ends its text where it stopped, with the finish saying interrupted', async () => {
  const events = [requested, delta(0, 'Partial'), finished('cancelled', 'operator stopped it')];
  const message = await messageOf(events);
  expect(texts(message.parts)).toEqual(['Partial']);
  expect(message.chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'interrupted' });
  expect(message.parts).toContainEqual({
    type: 'data-outcome',
    data: { status: 'cancelled', reason: 'operator stopped it' },
  });
});

test('a call an approver rejected shows its approval request, then as denied; no output is added after it', async () => {
  const call = preparedCall({
    toolName: 'deploy',
    input: { target: 'prod' },
    policy: { concurrencySafe: false, retrySafe: false, requiresApproval: true },
  });
  const message = await messageOf([
    requested,
    responded('Deploying.', [call]),
    entry({ type: 'tool.approval_requested', toolCallId: 'c1', at: 1 }),
    entry({ type: 'tool.approval_decided', toolCallId: 'c1', approved: false, reason: 'not today' }),
    entry({
      type: 'tool.completed',
      toolCallId: 'c1',
      output: {
        status: 'error',
        content: 'the call was rejected: not today',
        attempts: 0,
        errorType: 'rejected',
      },
    }),
    finished('completed'),
  ]);
  const tool = message.parts.find((part) => part.type === 'dynamic-tool');
  expect(tool).toMatchObject({ toolName: 'deploy', state: 'output-denied', input: { target: 'prod' } });
});

const read = preparedCall({
  toolName: 'read_file',
  input: { path: 'a' },
  policy: { concurrencySafe: true, retrySafe: true, requiresApproval: false },
});

test('a response whose call started before its text was seen has its parts in the order of the message, however it was watched', async () => {
  const accepted = entry({ type: 'model.call_accepted', responseIndex: 0, call: read });
  const started = entry({ type: 'tool.attempt_started', toolCallId: 'c1', attempt: 1, at: 1 });
  const ended = entry({ type: 'model.response_ended', responseIndex: 0, at: 2 });
  const order = (message: UIMessage) =>
    visibleParts(message).flatMap((part) =>
      part.type === 'text'
        ? [`text:${part.text}`]
        : part.type === 'dynamic-tool'
          ? [`tool:${part.toolName}`]
          : [],
    );

  const live = await messageOf([
    requested,
    delta(0, 'Hello '),
    accepted,
    started,
    delta(6, 'world'),
    ended,
    responded('Hello world', [read]),
  ]);
  // A replay: the text comes whole after the response ended.
  const replayed = await messageOf([
    requested,
    accepted,
    started,
    ended,
    delta(0, 'Hello world'),
    responded('Hello world', [read]),
  ]);
  // A late joiner: a gap, then deltas it cannot continue, then the whole text.
  const joined = await messageOf([
    requested,
    accepted,
    started,
    { kind: 'gap', responseIndex: 0, channel: 'text', offset: 0, length: 6 },
    delta(6, 'world'),
    ended,
    { kind: 'restart', responseIndex: 0 },
    delta(0, 'Hello world'),
    responded('Hello world', [read]),
  ]);

  for (const message of [live, replayed, joined])
    expect(order(message)).toEqual(['text:Hello world', 'tool:read_file']);
});

test('nothing is shown after the finish: a stale look at the text that comes after it adds no part', async () => {
  const message = await messageOf([
    requested,
    delta(0, 'Hi'),
    responded('Hi'),
    finished('completed'),
    delta(0, 'Hi'),
  ]);
  expect(texts(message.parts)).toEqual(['Hi']);
  expect(message.chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
});

test('an approved call shows the approval answered, then its output', async () => {
  const call = { ...read, policy: { ...read.policy, requiresApproval: true } };
  const states: string[] = [];
  const events = [
    requested,
    responded('Reading.', [call]),
    entry({ type: 'tool.approval_requested', toolCallId: 'c1', at: 1 }),
    entry({ type: 'tool.approval_decided', toolCallId: 'c1', approved: true, reason: 'fine' }),
    entry({
      type: 'tool.completed',
      toolCallId: 'c1',
      output: { status: 'ok', content: 'contents', attempts: 1 },
    }),
    finished('completed'),
  ];
  for (let upTo = 3; upTo <= events.length; upTo++) {
    const message = await messageOf(events.slice(0, upTo));
    const tool = message.parts.find((part) => part.type === 'dynamic-tool');
    states.push(tool && 'state' in tool ? tool.state : 'none');
  }
  expect(states).toEqual([
    'approval-requested',
    'approval-responded',
    'output-available',
    'output-available',
  ]);
});

/** The journal's first entry: the pause is the turn's state, folded from its start. */
const started = entry({ type: 'turn.started', turnId: 't', input: [{ role: 'user', content: 'read a' }] });

test('a chat stream ends when the turn waits for nothing but an approval; its continuation after the decision sends only what follows, and the two make the message one stream makes', async () => {
  const call = { ...read, policy: { ...read.policy, requiresApproval: true } };
  const events = [
    started,
    requested,
    responded('Reading.', [call]),
    entry({ type: 'tool.approval_requested', toolCallId: 'c1', at: 1 }),
    entry({ type: 'tool.approval_decided', toolCallId: 'c1', approved: true }),
    entry({ type: 'tool.attempt_started', toolCallId: 'c1', attempt: 1, at: 2 }),
    entry({
      type: 'tool.completed',
      toolCallId: 'c1',
      output: { status: 'ok', content: 'contents', attempts: 1 },
    }),
    finished('completed'),
  ];
  async function* replay() {
    yield* events;
  }
  const collect = async (chunks: AsyncIterable<UIMessageChunk>) => {
    const all: UIMessageChunk[] = [];
    for await (const chunk of chunks) all.push(chunk);
    return all;
  };
  const paused = await collect(turnUiChunks(replay(), { messageId: 'm', endAtPause: { from: 0 } }));
  expect(paused.at(-1)).toEqual({ type: 'finish', finishReason: 'tool-calls' });
  expect(paused.some((chunk) => chunk.type === 'tool-approval-request')).toBe(true);
  const continued = await collect(
    turnUiChunks(replay(), { messageId: 'm', endAtPause: { from: 0 }, afterDecisionsOf: ['c1'] }),
  );
  expect(continued.map((chunk) => chunk.type)).toEqual([
    'start',
    'tool-approval-response',
    'data-attempt',
    'tool-output-available',
    'data-outcome',
    'finish',
  ]);
  // The client applies the continuation to the message it holds, as useChat does.
  const { readUIMessageStream } = await import('ai');
  const apply = async (chunks: UIMessageChunk[], message?: UIMessage) => {
    let last = message;
    const stream = new ReadableStream<UIMessageChunk>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });
    for await (const snapshot of readUIMessageStream({ stream, ...(message ? { message } : {}) }))
      last = snapshot;
    return last;
  };
  const both = await apply(continued, await apply(paused));
  const whole = await apply(await collect(turnUiChunks(replay(), { messageId: 'm' })));
  expect(both?.parts).toEqual(whole?.parts);
});

test('a turn that ends while its message waits at a pause sends its end to the continuation (a decision that came too late)', async () => {
  const call = { ...read, policy: { ...read.policy, requiresApproval: true } };
  async function* replay() {
    yield* [
      started,
      requested,
      responded('Reading.', [call]),
      entry({ type: 'tool.approval_requested', toolCallId: 'c1', at: 1 }),
      entry({
        type: 'tool.completed',
        toolCallId: 'c1',
        output: { status: 'interrupted', content: 'turn cancelled', attempts: 0 },
      }),
      finished('cancelled'),
    ] satisfies TurnWatchEvent[];
  }
  const chunks: UIMessageChunk[] = [];
  for await (const chunk of turnUiChunks(replay(), { messageId: 'm', afterDecisionsOf: ['c1'] }))
    chunks.push(chunk);
  expect(chunks.map((chunk) => chunk.type)).toEqual(['start', 'data-outcome', 'finish']);
});

test('a replay does not end at a pause the turn has since left: only at one reached from the journal’s end on', async () => {
  const call = { ...read, policy: { ...read.policy, requiresApproval: true } };
  const events = [
    started,
    requested,
    responded('Reading.', [call]),
    entry({ type: 'tool.approval_requested', toolCallId: 'c1', at: 1 }),
    entry({ type: 'tool.approval_decided', toolCallId: 'c1', approved: true }),
    entry({ type: 'tool.attempt_started', toolCallId: 'c1', attempt: 1, at: 2 }),
  ];
  async function* replay() {
    yield* events;
  }
  const last = events.at(-1);
  const from = last?.kind === 'entry' ? last.seq : 0;
  const chunks: UIMessageChunk[] = [];
  for await (const chunk of turnUiChunks(replay(), { messageId: 'm', endAtPause: { from } }))
    chunks.push(chunk);
  expect(chunks.map((chunk) => chunk.type)).toContain('tool-approval-response');
  expect(chunks.some((chunk) => chunk.type === 'finish')).toBe(false);
});

test('the stream ends once nothing but the approval is left, even while another call’s output waits in batch order behind it', async () => {
  const needsApproval = { ...read, policy: { ...read.policy, requiresApproval: true } };
  const other = { ...read, toolCallId: 'c2', input: { path: 'b' } };
  async function* replay() {
    yield* [
      started,
      requested,
      responded('Reading both.', [needsApproval, other]),
      entry({ type: 'tool.approval_requested', toolCallId: 'c1', at: 1 }),
      entry({ type: 'tool.attempt_started', toolCallId: 'c2', attempt: 1, at: 1 }),
      entry({
        type: 'tool.attempt_finished',
        toolCallId: 'c2',
        attempt: 1,
        result: { status: 'ok', content: 'b', resultHash: 'h' },
        at: 2,
        durationMs: 1,
      }),
    ] satisfies TurnWatchEvent[];
  }
  const chunks: UIMessageChunk[] = [];
  for await (const chunk of turnUiChunks(replay(), { messageId: 'm', endAtPause: { from: 0 } }))
    chunks.push(chunk);
  // Not at the approval request while c2 ran: after c2's attempt finished.
  expect(chunks.slice(-2).map((chunk) => chunk.type)).toEqual(['data-attempt', 'finish']);
  expect(chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'tool-calls' });
});

test('a structured answer reaches the page with the outcome: the checked value, not only its text', async () => {
  async function* replay() {
    yield* [
      started,
      requested,
      responded('{"done":true}', []),
      entry({ type: 'turn.finished', status: 'completed', output: { done: true } }),
    ] satisfies TurnWatchEvent[];
  }
  const chunks: UIMessageChunk[] = [];
  for await (const chunk of turnUiChunks(replay(), { messageId: 'm' })) chunks.push(chunk);
  expect(chunks.find((chunk) => chunk.type === 'data-outcome')).toMatchObject({
    data: { status: 'completed', output: { done: true } },
  });
});
