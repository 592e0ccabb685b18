import {
  type ApprovalGrantInput,
  type CompactionConfigInput,
  type ConversationHooks,
  ConversationRefusedError,
  type ConversationState,
  type ConversationWatchEvent,
  defineTool,
  type ForkPoint,
  type Message,
  type MessageReceipt,
  type ModelRequest,
  type SendPolicy,
  scriptedModel,
  type TurnResult,
} from 'durable-turns';
import { z } from 'zod';
import { summaryMessage } from '../../core';
import { pollFor } from '../temporal/support/poll';
import { uniqueTurnId } from './support';

/** Conversations as an executor under test gives them: `ConversationClient` on Temporal, `InProcessConversations` in process. */
export interface ConversationHarness {
  name: string;
  send(
    conversationId: string,
    message: string,
    /** `compaction`: the conversation's turns compact (read when the send creates it). */
    options: { messageId: string; policy?: SendPolicy; compaction?: CompactionConfigInput },
  ): Promise<MessageReceipt>;
  /** Turn `n`'s result once it ends (waiting for it to start, too). */
  turnResult(conversationId: string, n: number): Promise<TurnResult>;
  state(conversationId: string): Promise<ConversationState>;
  transcript(conversationId: string): Promise<Message[]>;
  close(conversationId: string): Promise<{ dropped: string[] }>;
  delete(conversationId: string): Promise<{ turns: number }>;
  /** Its turns' entries across turn boundaries (`watch` with `live: false`). */
  watch(conversationId: string): AsyncIterable<ConversationWatchEvent>;
  /** The ids of the conversations there are (on Temporal, as Visibility has them: a moment behind). */
  list(): Promise<string[]>;
  /** "Always allow" in the conversation (`grant` of the executor's conversations); rejects with the refusal. */
  grant(conversationId: string, grant: ApprovalGrantInput): Promise<void>;
  revoke(conversationId: string, grantId: string): Promise<void>;
  /** A branch of `from` after its turn `afterTurn` (`branch` of the executor's conversations). */
  branch(
    from: string,
    to: { conversationId: string; afterTurn: number; fork?: { at: ForkPoint } },
  ): Promise<unknown>;
}

/**
 * How long a call that needs approval waits in a conversation's turn: nobody decides in these
 * cases (in process, with no approver, it is rejected at once; on Temporal it expires after this).
 */
export const conversationApprovals = { timeoutMs: 200 };

/** What the conversation hooks saw, by conversation (only those whose ids begin `conv-hooks`). */
export const hookEvents = new Map<string, string[]>();
const heard = (conversationId: string, event: string): void => {
  hookEvents.set(conversationId, [...(hookEvents.get(conversationId) ?? []), event]);
};

/** The hooks both hosts run: each case that uses them has an id of its own that they match. */
export const conversationHooks: ConversationHooks[] = [
  {
    name: 'audit',
    matcher: /^conv-hooks/,
    sessionStart: ({ conversationId }) => {
      heard(conversationId, 'session start');
      if (conversationId.startsWith('conv-hooks-refused')) throw new Error('no sessions for this tenant');
    },
    promptSubmit: ({ conversationId, messageId, message }) => {
      heard(conversationId, `submit ${messageId}`);
      const text = typeof message.content === 'string' ? message.content : '';
      if (text === 'forbidden') return { action: 'block', reason: 'not allowed here' };
      if (text.includes('secret'))
        return { action: 'rewrite', message: text.replace('secret', '[redacted]') };
      return undefined;
    },
    turnEnd: ({ conversationId, turnId, status }) => heard(conversationId, `turn end ${turnId} ${status}`),
    sessionEnd: ({ conversationId, turns, dropped }) =>
      heard(conversationId, `session end after ${turns} turn(s), ${dropped.length} dropped`),
  },
];

/** Calls of `slow` wait until their gate opens (or the attempt is cancelled). */
const gates = new Map<string, () => void>();
/** The targets `guarded` really ran for (it needs approval: only a grant lets it run here). */
export const guardedRuns: string[] = [];
export const conversationTools = [
  defineTool({
    name: 'guarded',
    description: 'Acts on a target; needs a person’s approval',
    input: z.object({ target: z.string() }),
    requiresApproval: true,
    execute: ({ target }) => {
      guardedRuns.push(target);
      return `acted on ${target}`;
    },
  }),
  defineTool({
    name: 'note',
    description: 'Takes a note',
    input: z.object({}),
    concurrencySafe: true,
    execute: () => 'noted',
  }),
  defineTool({
    name: 'slow',
    description: 'Waits for its gate',
    input: z.object({ gate: z.string() }),
    execute: ({ gate }, { signal }) =>
      new Promise<string>((resolve, reject) => {
        gates.set(gate, () => resolve(`slow output of ${gate}`));
        signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true });
      }),
  }),
];

const lastUserText = (request: ModelRequest) =>
  [...request.messages].reverse().find((m) => m.role === 'user')?.content as string;

/** A user message `wait:G` calls `slow` with gate G; any other is answered at once. */
export const conversationModel = scriptedModel([
  (request) => {
    const text = lastUserText(request);
    // A response whose context is large (for compaction).
    if (text === 'big') return { toolCalls: [{ id: 'call-big', name: 'note', args: {} }], usage: big };
    if (text.startsWith('wait:'))
      return { toolCalls: [{ id: `call-${text}`, name: 'slow', args: { gate: text.slice(5) } }] };
    if (text.startsWith('guarded:'))
      return { toolCalls: [{ id: `call-${text}`, name: 'guarded', args: { target: text.slice(8) } }] };
    // The answer (the model's last response) takes a while to finish streaming.
    if (text.startsWith('slowly:')) return { text: `answer to ${text}`, finishDelayMs: 1_000 };
    return { text: `answer to ${text}` };
  },
  (request) => ({ text: `done with ${lastUserText(request)}` }),
]);

const user = (content: string): Message => ({ role: 'user', content });
const big = { inputTokens: 900, outputTokens: 200 };
const gateOpened = (gate: string) =>
  pollFor(`the slow call of gate ${gate} to run`, async () => gates.get(gate));
const requestOf = (turnId: string, responseIndex = 0) =>
  conversationModel.requests.find((r) => r.turnId === turnId && r.responseIndex === responseIndex);

/**
 * The conversation's state once it has heard of its running turn's end: it does a moment after the
 * turn's result (on Temporal, after the turn-end hooks' local activity too).
 */
const heardOfTheEnd = (harness: ConversationHarness, id: string) =>
  pollFor(`conversation ${id} to hear of its turn's end`, async () => {
    const state = await harness.state(id);
    return state.running ? undefined : state;
  });

/** A gate name no other case (on either executor) uses. */
const gateName = (label: string) => uniqueTurnId(label).replace(/[^a-z0-9-]/gi, '');

export function conversationCases(harness: ConversationHarness): void {
  describe(`a conversation (${harness.name})`, () => {
    test('enqueue: each message is a turn of its own, in order; a later turn sends the earlier ones first; a retried send is one message; reject names the running turn', async () => {
      const id = uniqueTurnId('conv');
      const gate = gateName('a');
      expect(await harness.send(id, `wait:${gate}`, { messageId: 'm1' })).toEqual({
        messageId: 'm1',
        status: 'started',
        turnId: `${id}#1`,
      });
      await gateOpened(gate);
      expect(await harness.send(id, 'second', { messageId: 'm2' })).toEqual({
        messageId: 'm2',
        status: 'queued',
        ahead: 1,
      });
      // The same message id again (a retry): the same message, not a second turn.
      expect(await harness.send(id, 'second', { messageId: 'm2' })).toMatchObject({ status: 'queued' });
      const busy = await harness.send(id, 'third', { messageId: 'm3', policy: 'reject' }).catch((e) => e);
      expect(ConversationRefusedError.isInstance(busy)).toBe(true);
      expect(busy).toMatchObject({
        code: 'conversation-busy',
        message: `conversation ${id} is running turn ${id}#1; message m3 was rejected (policy reject)`,
      });

      gates.get(gate)?.();
      const second = await harness.turnResult(id, 2);
      expect(second.text).toBe('answer to second');
      // Its request began with the whole first turn, then its own message.
      expect(requestOf(`${id}#2`)?.messages).toEqual([
        user(`wait:${gate}`),
        expect.objectContaining({ role: 'assistant' }),
        expect.objectContaining({ role: 'tool' }),
        { role: 'assistant', content: [{ type: 'text', text: `done with wait:${gate}` }] },
        user('second'),
      ]);
      const state = await heardOfTheEnd(harness, id);
      expect(state).toMatchObject({ turnCount: 2, received: 3, queue: [], next: [] });
      expect(state.running).toBeUndefined();
      const transcript = await harness.transcript(id);
      expect(transcript.filter((m) => m.role === 'user')).toEqual([user(`wait:${gate}`), user('second')]);
      expect(transcript.at(-1)).toEqual({
        role: 'assistant',
        content: [{ type: 'text', text: 'answer to second' }],
      });
    });

    test('branch: a new conversation after turn 1 of another reads that turn (not the later ones) without running it again; its next turns read it too; the source goes on; a point it has not reached and a taken id are refused', async () => {
      const id = uniqueTurnId('conv-branch');
      const gate = gateName('branch');
      await harness.send(id, `wait:${gate}`, { messageId: 'm1' });
      await gateOpened(gate);
      // Turn 1 runs: there is no ended turn to go after yet.
      const early = await harness.branch(id, { conversationId: `${id}-b0`, afterTurn: 1 }).catch((e) => e);
      expect(early).toMatchObject({ code: 'invalid-branch-point' });
      gates.get(gate)?.();
      await harness.turnResult(id, 1);
      await harness.send(id, 'second', { messageId: 'm2' });
      await harness.turnResult(id, 2);
      const sourceRequests = conversationModel.requests.filter((r) => r.turnId.startsWith(`${id}`)).length;

      const branch = `${id}-b`;
      await harness.branch(id, { conversationId: branch, afterTurn: 1 });
      await harness.send(branch, 'instead', { messageId: 'b1' });
      expect((await harness.turnResult(branch, 1)).text).toBe('answer to instead');
      await harness.send(branch, 'then', { messageId: 'b2' });
      expect((await harness.turnResult(branch, 2)).text).toBe('answer to then');
      // Its first request: the source's turn 1 whole, then its own message (not the source's turn 2).
      const sourceTurnOne = [
        user(`wait:${gate}`),
        expect.objectContaining({ role: 'assistant' }),
        expect.objectContaining({ role: 'tool' }),
        { role: 'assistant', content: [{ type: 'text', text: `done with wait:${gate}` }] },
      ];
      expect(requestOf(`${branch}#1`)?.messages).toEqual([...sourceTurnOne, user('instead')]);
      expect(requestOf(`${branch}#2`)?.messages).toEqual([
        ...sourceTurnOne,
        user('instead'),
        { role: 'assistant', content: [{ type: 'text', text: 'answer to instead' }] },
        user('then'),
      ]);
      // Nothing of the source ran again: no request of its turns, and its slow call ran once.
      expect(conversationModel.requests.filter((r) => r.turnId.startsWith(`${id}#`)).length).toBe(
        sourceRequests,
      );
      expect(await heardOfTheEnd(harness, branch)).toMatchObject({
        turnCount: 2,
        origin: [{ conversationId: id, turns: 1 }],
      });
      const transcript = await harness.transcript(branch);
      expect(transcript.filter((m) => m.role === 'user')).toEqual([
        user(`wait:${gate}`),
        user('instead'),
        user('then'),
      ]);
      // The source goes on, unchanged by its branch.
      await harness.send(id, 'third', { messageId: 'm3' });
      expect(requestOf(`${id}#3`)?.messages.filter((m) => m.role === 'user')).toBeUndefined();
      expect((await harness.turnResult(id, 3)).text).toBe('answer to third');
      expect(requestOf(`${id}#3`)?.messages.filter((m) => m.role === 'user')).toEqual([
        user(`wait:${gate}`),
        user('second'),
        user('third'),
      ]);
      // A point the source has not reached, and an id that is taken.
      const late = await harness.branch(id, { conversationId: `${id}-b9`, afterTurn: 9 }).catch((e) => e);
      expect(late).toMatchObject({ code: 'invalid-branch-point' });
      const taken = await harness.branch(id, { conversationId: branch, afterTurn: 1 }).catch((e) => e);
      expect(taken).toMatchObject({ code: 'conversation-exists' });
    });

    test('branch with a fork: its turn 1 begins with the source’s next turn cut after its first response (its call’s output kept, nothing run or asked again), then its own message', async () => {
      const id = uniqueTurnId('conv-branch-fork');
      const gate = gateName('fork');
      await harness.send(id, 'first', { messageId: 'm1' });
      await harness.turnResult(id, 1);
      await heardOfTheEnd(harness, id);
      await harness.send(id, `wait:${gate}`, { messageId: 'm2' });
      await gateOpened(gate);
      gates.get(gate)?.();
      await harness.turnResult(id, 2);
      await heardOfTheEnd(harness, id);
      const branch = `${id}-f`;
      await harness.branch(id, { conversationId: branch, afterTurn: 1, fork: { at: { afterResponse: 0 } } });
      gates.delete(gate);
      await harness.send(branch, 'instead', { messageId: 'b1' });
      const forked = await harness.turnResult(branch, 1);
      expect(forked.text).toBe('done with instead');
      // Its first request is response 2 of the record: turn 1 of the source by reference, then turn 2's
      // start, its call and that call's recorded output, then the new message.
      expect(requestOf(`${branch}#1`)).toBeUndefined();
      expect(requestOf(`${branch}#1`, 1)?.messages).toEqual([
        user('first'),
        { role: 'assistant', content: [{ type: 'text', text: 'answer to first' }] },
        user(`wait:${gate}`),
        expect.objectContaining({ role: 'assistant' }),
        expect.objectContaining({
          role: 'tool',
          content: [
            expect.objectContaining({
              output: expect.objectContaining({ content: `slow output of ${gate}` }),
            }),
          ],
        }),
        user('instead'),
      ]);
      // The slow call did not run again (it would have waited on its gate).
      expect(gates.has(gate)).toBe(false);
      const past = await harness
        .branch(id, { conversationId: `${id}-f2`, afterTurn: 2, fork: { at: { afterResponse: 0 } } })
        .catch((e) => e);
      expect(past).toMatchObject({ code: 'invalid-branch-point' });
    });

    test('hooks of a branch: its session starts with its first message, not when it is made; one closed before any message ends none', async () => {
      const source = uniqueTurnId('conv-hooks-bsrc');
      await harness.send(source, 'first', { messageId: 'm1' });
      await harness.turnResult(source, 1);
      await heardOfTheEnd(harness, source);
      const branch = uniqueTurnId('conv-hooks-branch');
      await harness.branch(source, { conversationId: branch, afterTurn: 1 });
      const idle = uniqueTurnId('conv-hooks-idle');
      await harness.branch(source, { conversationId: idle, afterTurn: 1 });
      expect(hookEvents.get(branch)).toBeUndefined();
      await harness.send(branch, 'hello', { messageId: 'b1' });
      await harness.turnResult(branch, 1);
      await heardOfTheEnd(harness, branch);
      await harness.close(branch);
      await harness.close(idle);
      await pollFor('the branch’s session end to be heard', async () =>
        hookEvents.get(branch)?.some((e) => e.startsWith('session end')) ? true : undefined,
      );
      expect(hookEvents.get(branch)).toEqual([
        'session start',
        'submit b1',
        `turn end ${branch}#1 completed`,
        'session end after 1 turn(s), 0 dropped',
      ]);
      expect(hookEvents.get(idle)).toBeUndefined();
    });

    test('a branch whose source was deleted, or whose source id was begun again, fails its turns saying so instead of reading nothing or another conversation', async () => {
      const id = uniqueTurnId('conv-branch-gone');
      await harness.send(id, 'first', { messageId: 'm1' });
      await harness.turnResult(id, 1);
      await heardOfTheEnd(harness, id);
      const branch = `${id}-b`;
      await harness.branch(id, { conversationId: branch, afterTurn: 1 });
      await harness.delete(id);
      await harness.send(branch, 'still there?', { messageId: 'b1' });
      const gone = await harness.turnResult(branch, 1);
      expect(gone.status).toBe('failed');
      expect(gone.reason).toContain(`conversation ${id}, which this branch came from, is gone (deleted)`);
      await heardOfTheEnd(harness, branch);
      // Another conversation under the source's id: its turn 1 is not the one the branch came after.
      await harness.send(id, 'someone else', { messageId: 'm9' });
      await harness.turnResult(id, 1);
      await harness.send(branch, 'and now?', { messageId: 'b2' });
      const other = await harness.turnResult(branch, 2);
      expect(other.status).toBe('failed');
      expect(other.reason).toContain('was deleted and its id begun again');
    });

    test('interrupt: the running turn is cancelled with a true output for its call, and the message starts the next turn', async () => {
      const id = uniqueTurnId('conv-interrupt');
      const gate = gateName('b');
      await harness.send(id, `wait:${gate}`, { messageId: 'm1' });
      await gateOpened(gate);
      expect(await harness.send(id, 'stop that', { messageId: 'm2', policy: 'interrupt' })).toEqual({
        messageId: 'm2',
        status: 'queued',
        ahead: 1,
      });
      const first = await harness.turnResult(id, 1);
      expect(first.status).toBe('cancelled');
      expect(first.outputs).toEqual([
        expect.objectContaining({ toolCallId: `call-wait:${gate}`, status: 'interrupted' }),
      ]);
      const second = await harness.turnResult(id, 2);
      expect(second.text).toBe('answer to stop that');
      expect(requestOf(`${id}#2`)?.messages.at(-1)).toEqual(user('stop that'));
    });

    test('steer: the message joins the running turn at its next request; the running call goes on and its output stands', async () => {
      const id = uniqueTurnId('conv-steer');
      const gate = gateName('d');
      await harness.send(id, `wait:${gate}`, { messageId: 'm1' });
      await gateOpened(gate);
      expect(await harness.send(id, 'be brief', { messageId: 'm2', policy: 'steer' })).toEqual({
        messageId: 'm2',
        status: 'steered',
        turnId: `${id}#1`,
      });
      gates.get(gate)?.();
      const first = await harness.turnResult(id, 1);
      expect(first.outputs).toEqual([
        expect.objectContaining({
          toolCallId: `call-wait:${gate}`,
          status: 'ok',
          content: `slow output of ${gate}`,
        }),
      ]);
      // The same transcript on every executor: the steer between the call's result and the next response.
      expect(first.events.map((e) => e.type)).toEqual([
        'turn.started',
        'model.requested',
        'model.responded',
        'tool.completed',
        'user.steered',
        'model.requested',
        'model.responded',
        'turn.finished',
      ]);
      expect(first.events.filter((e) => e.type === 'user.steered')).toEqual([
        { type: 'user.steered', messages: [{ messageId: 'm2', message: user('be brief') }] },
      ]);
      expect(requestOf(`${id}#1`, 1)?.messages.map((m) => m.role)).toEqual([
        'user',
        'assistant',
        'tool',
        'user',
      ]);
      expect(first.text).toBe('done with be brief');
      expect((await harness.state(id)).turnCount).toBe(1);
    });

    test('a steer that comes while the last answer streams is not lost: it starts the next turn', async () => {
      const id = uniqueTurnId('conv-late-steer');
      await harness.send(id, 'slowly: hello', { messageId: 'm1' });
      await pollFor('the answer to stream', async () => requestOf(`${id}#1`));
      const receipt = await harness.send(id, 'one more thing', { messageId: 'm2', policy: 'steer' });
      // Steered into turn 1 while it streamed (and left by it), or after it ended: a turn of its own.
      expect([`${id}#1`, `${id}#2`]).toContain('turnId' in receipt ? receipt.turnId : '');
      const first = await harness.turnResult(id, 1);
      expect(first.events.some((e) => e.type === 'user.steered')).toBe(false);
      const second = await harness.turnResult(id, 2);
      expect(second.text).toBe('answer to one more thing');
      expect(await harness.send(id, 'one more thing', { messageId: 'm2', policy: 'steer' })).toEqual({
        messageId: 'm2',
        status: 'started',
        turnId: `${id}#2`,
      });
    });

    test('closed: what waits is dropped, the running turn ends as it would, and sends are refused with a clear error', async () => {
      const id = uniqueTurnId('conv-close');
      const gate = gateName('c');
      await harness.send(id, `wait:${gate}`, { messageId: 'm1' });
      await gateOpened(gate);
      await harness.send(id, 'later', { messageId: 'm2' });
      expect(await harness.close(id)).toEqual({ dropped: ['m2'] });
      await expect(harness.send(id, 'again', { messageId: 'm3' })).rejects.toMatchObject({
        code: 'conversation-closed',
        message: `conversation ${id} is closed: it takes no more messages`,
      });
      // A retry of a message it had is answered from its receipts, closed or not.
      expect(await harness.send(id, 'later', { messageId: 'm2' })).toEqual({
        messageId: 'm2',
        status: 'dropped',
      });
      gates.get(gate)?.();
      expect((await harness.turnResult(id, 1)).status).toBe('completed');
      expect(conversationModel.requests.some((r) => r.turnId === `${id}#2`)).toBe(false);
    });

    test('watched: one watch opened before its first message follows turn after turn, each to its end, whoever sent; it ends once the conversation is closed and done', async () => {
      const id = uniqueTurnId('conv-watch');
      const transcriptTypes = new Set(['turn.started', 'model.responded', 'tool.completed', 'turn.finished']);
      const seen: string[] = [];
      const watching = (async () => {
        for await (const { turnId, turnNumber, event } of harness.watch(id)) {
          expect(turnId).toBe(`${id}#${turnNumber}`);
          if (event.kind === 'entry' && transcriptTypes.has(event.entry.type))
            seen.push(`${turnNumber} ${event.entry.type}`);
        }
      })();
      await harness.send(id, 'one', { messageId: 'm1' });
      await harness.turnResult(id, 1);
      await heardOfTheEnd(harness, id);
      await harness.send(id, 'two', { messageId: 'm2' });
      await harness.turnResult(id, 2);
      await heardOfTheEnd(harness, id);
      await harness.close(id);
      await watching;
      expect(seen).toEqual([
        '1 turn.started',
        '1 model.responded',
        '1 turn.finished',
        '2 turn.started',
        '2 model.responded',
        '2 turn.finished',
      ]);
    });

    test('deleted: its session ends, a running turn is cancelled first, what waits is dropped; then it and its turns are gone and its id begins a new conversation that sends nothing of the old', async () => {
      const id = uniqueTurnId('conv-hooks-deleted');
      const gate = gateName('e');
      await harness.send(id, 'one', { messageId: 'm1' });
      await harness.turnResult(id, 1);
      await heardOfTheEnd(harness, id);
      // Turn 2's request reads turn 1 (a host keeps what it read of earlier turns).
      await harness.send(id, `wait:${gate}`, { messageId: 'm2' });
      await gateOpened(gate);
      await harness.send(id, 'later', { messageId: 'm3' });
      // (Temporal's list is Visibility's, a moment behind.)
      await pollFor(`the list to show ${id}`, async () => (await harness.list()).includes(id) || undefined);

      expect(await harness.delete(id)).toEqual({ turns: 2 });
      // Closed first (as `close` does, the session ends while its turn still runs), then the turn cancelled.
      expect(hookEvents.get(id)?.slice(-2)).toEqual([
        'session end after 2 turn(s), 1 dropped',
        `turn end ${id}#2 cancelled`,
      ]);
      await pollFor(`the list to drop ${id}`, async () => !(await harness.list()).includes(id) || undefined);
      await expect(harness.delete(id)).rejects.toMatchObject({
        code: 'conversation-not-found',
        message: `no conversation ${id}`,
      });

      // The same id and message ids: a new conversation, with nothing of the deleted one.
      expect(await harness.send(id, 'fresh', { messageId: 'm1' })).toEqual({
        messageId: 'm1',
        status: 'started',
        turnId: `${id}#1`,
      });
      expect((await harness.turnResult(id, 1)).text).toBe('answer to fresh');
      await heardOfTheEnd(harness, id);
      await harness.send(id, 'again', { messageId: 'm2' });
      await harness.turnResult(id, 2);
      const secondTurnRequests = conversationModel.requests.filter((r) => r.turnId === `${id}#2`);
      expect(secondTurnRequests.at(-1)?.messages.filter((m) => m.role === 'user')).toEqual([
        user('fresh'),
        user('again'),
      ]);
    });

    test('compaction in a conversation: the summary covers the earlier turns too, and the turns after it send it instead of them', async () => {
      const id = uniqueTurnId('conv-compact');
      const compaction = { maxContextTokens: 1_000 };
      await harness.send(id, 'one', { messageId: 'm1', compaction });
      await harness.turnResult(id, 1);
      await harness.send(id, 'big', { messageId: 'm2', compaction });
      const second = await harness.turnResult(id, 2);
      expect(second.events.filter((e) => e.type === 'context.compacted')).toEqual([
        expect.objectContaining({ through: 1, summary: 'summary of 3 messages' }),
      ]);
      // Its summary request began with turn 1, then its own message.
      const summarised = conversationModel.requests.find(
        (r) => r.turnId === `${id}#2` && r.purpose === 'compaction',
      );
      expect(summarised?.tools).toEqual([]);
      expect(summarised?.messages.slice(0, 3)).toEqual([
        user('one'),
        { role: 'assistant', content: [{ type: 'text', text: 'answer to one' }] },
        user('big'),
      ]);
      await harness.send(id, 'three', { messageId: 'm3', compaction });
      await harness.turnResult(id, 3);
      // Turn 3 sends turn 2 as its compacted context, and nothing of turn 1.
      expect(requestOf(`${id}#3`)?.messages.filter((m) => m.role === 'user')).toEqual([
        summaryMessage('summary of 3 messages'),
        user('big'),
        user('three'),
      ]);
      // The conversation's transcript is whole: every turn's messages, none summarised away.
      await heardOfTheEnd(harness, id);
      expect((await harness.transcript(id)).filter((m) => m.role === 'user')).toEqual([
        user('one'),
        user('big'),
        user('three'),
      ]);
    });

    test('hooks: the session starts with the first message, a message may be rewritten or blocked (its retry blocked alike, the hooks not asked again), each turn end and the close are heard', async () => {
      const id = uniqueTurnId('conv-hooks');
      expect(await harness.send(id, 'tell me the secret', { messageId: 'm1' })).toMatchObject({
        status: 'started',
      });
      await harness.turnResult(id, 1);
      expect(requestOf(`${id}#1`)?.messages.at(-1)).toEqual(user('tell me the [redacted]'));
      await heardOfTheEnd(harness, id);
      const blocked = {
        code: 'message-blocked',
        message: `conversation ${id} refused message m2: not allowed here`,
      };
      await expect(harness.send(id, 'forbidden', { messageId: 'm2' })).rejects.toMatchObject(blocked);
      await expect(harness.send(id, 'forbidden', { messageId: 'm2' })).rejects.toMatchObject(blocked);
      expect((await harness.state(id)).turnCount).toBe(1);
      await harness.close(id);
      expect(hookEvents.get(id)).toEqual([
        'session start',
        'submit m1',
        `turn end ${id}#1 completed`,
        'submit m2',
        'session end after 1 turn(s), 0 dropped',
      ]);
    });

    test('hooks: a session-start hook that throws refuses the conversation: its first message is blocked with the reason, and later ones find it closed', async () => {
      const id = uniqueTurnId('conv-hooks-refused');
      await expect(harness.send(id, 'hello', { messageId: 'm1' })).rejects.toMatchObject({
        code: 'message-blocked',
        message: `conversation ${id} refused message m1: conversation hook audit (sessionStart) failed: no sessions for this tenant`,
      });
      await pollFor('the refused conversation to be closed', async () =>
        (await harness.state(id)).closed ? true : undefined,
      );
      await expect(harness.send(id, 'hello again', { messageId: 'm2' })).rejects.toMatchObject({
        code: 'conversation-closed',
      });
      expect(hookEvents.get(id)).toEqual(['session start']);
    });
  });
  describe(`a conversation's grants (${harness.name})`, () => {
    test('a grant given in the conversation lets its later turns run the calls it covers without asking; revoked, they ask again', async () => {
      const id = uniqueTurnId('conv-grant');
      const target = gateName('t');
      const outputOf = async (n: number) => (await harness.turnResult(id, n)).outputs[0];

      await harness.send(id, `guarded:${target}-1`, { messageId: 'm1' });
      expect(await outputOf(1)).toMatchObject({
        status: 'error',
        errorType: expect.stringMatching(/rejected|approval-expired/),
      });
      await heardOfTheEnd(harness, id);

      await harness.grant(id, {
        grantId: 'guarded-mine',
        toolName: 'guarded',
        match: [{ path: 'target', pattern: `^${target}-` }],
        by: 'ops',
      });
      expect((await harness.state(id)).grants).toEqual([
        expect.objectContaining({ grantId: 'guarded-mine', scope: 'conversation', by: 'ops' }),
      ]);
      await expect(harness.grant(id, { grantId: 'guarded-mine', toolName: 'guarded' })).rejects.toThrow(
        /grant "guarded-mine" is already in force in conversation/,
      );

      await harness.send(id, `guarded:${target}-2`, { messageId: 'm2' });
      expect(await outputOf(2)).toMatchObject({ status: 'ok', content: `acted on ${target}-2` });
      await heardOfTheEnd(harness, id);
      // The turn reported it still in force: the conversation keeps it.
      expect((await harness.state(id)).grants?.map((g) => g.grantId)).toEqual(['guarded-mine']);

      await harness.revoke(id, 'guarded-mine');
      expect((await harness.state(id)).grants).toBeUndefined();
      await harness.send(id, `guarded:${target}-3`, { messageId: 'm3' });
      expect(await outputOf(3)).toMatchObject({ status: 'error' });
      expect(guardedRuns.filter((t) => t.startsWith(target))).toEqual([`${target}-2`]);
      await heardOfTheEnd(harness, id);
      await expect(harness.revoke(id, 'guarded-mine')).rejects.toThrow(
        /no grant "guarded-mine" is in force in conversation/,
      );
    });
  });
}
