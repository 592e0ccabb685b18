import { defineTool, scriptedModel } from 'durable-turns';
import { z } from 'zod';
import { conversationIdKey, turnStatusKey, waitingForApprovalKey } from '../../contract/search-attributes';
import { sleep, uniqueTurnId } from '../conformance/support';
import { TemporalKit } from './support/kit';
import { collect, messageChain, pollFor } from './support/poll';

const kit = new TemporalKit();
beforeAll(() => kit.open());
afterAll(() => kit.close());

const deployed: string[] = [];
const deploy = defineTool({
  name: 'deploy',
  description: 'Deploys to an environment (a person must approve it)',
  input: z.object({ target: z.string(), ms: z.number().optional() }),
  requiresApproval: true,
  execute: async ({ target, ms }, ctx) => {
    deployed.push(ctx.toolCallId);
    if (ms) await sleep(ms);
    return `deployed ${target}`;
  },
});

const echo = defineTool({
  name: 'echo',
  description: 'Echoes its text',
  input: z.object({ text: z.string() }),
  execute: ({ text }) => `echo: ${text}`,
});

const read = defineTool({
  name: 'read_file',
  description: 'Reads a file, slowly if asked',
  input: z.object({ path: z.string(), ms: z.number() }),
  concurrencySafe: true,
  resources: ({ path }) => [`file:${path}`],
  execute: async ({ path, ms }, ctx) => {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      ctx.heartbeat();
      await sleep(Math.min(100, ms));
    }
    return `contents of ${path}`;
  },
});

const write = defineTool({
  name: 'write_file',
  description: 'Writes a file',
  input: z.object({ path: z.string(), ms: z.number() }),
  resources: ({ path }) => [`file:${path}`],
  execute: async ({ path, ms }) => {
    await sleep(ms);
    return `wrote ${path}`;
  },
});

const tools = [deploy, echo, read, write];

describe('operators see and steer turns', () => {
  test('a call that requires approval holds the turn: state, list and search attributes show it waiting; approving runs it and the turn completes', async () => {
    const taskQueue = kit.taskQueue('approve');
    const model = scriptedModel([
      {
        toolCalls: [{ id: 'd1', name: 'deploy', args: { target: 'prod' } }],
        usage: { inputTokens: 10, outputTokens: 5 },
      },
      { text: 'deployed', usage: { inputTokens: 20, outputTokens: 6 } },
    ]);
    const worker = await kit.worker({ taskQueue, tools, model });
    await worker.runUntil(async () => {
      const client = kit.client(taskQueue);
      const turnId = uniqueTurnId('approve');
      const conversationId = uniqueTurnId('conversation');
      const turn = await client.start({ turnId, conversationId, input: 'deploy to prod', model: 'scripted' });

      const waiting = await pollFor('the turn to wait for approval', async () => {
        const state = await turn.state();
        return state.phase === 'awaiting-approval' ? state : undefined;
      });
      expect(waiting).toMatchObject({ turnId, phase: 'awaiting-approval', status: 'running' });
      expect(waiting.calls).toEqual([
        expect.objectContaining({
          toolCallId: 'd1',
          toolName: 'deploy',
          phase: 'awaiting-approval',
          attempts: 0,
          approval: {
            toolCallId: 'd1',
            toolName: 'deploy',
            input: { target: 'prod' },
            reason: expect.stringMatching(/deploy.*approval/),
            // What an edit must match: the tool's argument schema, recorded with the call.
            inputSchema: expect.objectContaining({ type: 'object', required: ['target'] }),
          },
        }),
      ]);
      expect(deployed).not.toContain('d1');
      // While it waits, its wall time keeps counting by the reader's clock: the workflow's stands
      // still between its tasks, and nothing happens in it while it waits.
      const before = await turn.state();
      await new Promise((resolve) => setTimeout(resolve, 500));
      const after = await turn.state();
      expect(after.startedAt).toBe(before.startedAt);
      expect(after.spent.wallTimeMs - before.spent.wallTimeMs).toBeGreaterThanOrEqual(490);

      // Visibility is eventually consistent: poll until the list catches up with the workflow.
      const listed = await pollFor('the running list to show the turn waiting', async () => {
        const running = await client.list({ status: 'running', limit: 1_000 });
        const mine = running.find((t) => t.turnId === turnId);
        return mine?.waitingForApproval ? mine : undefined;
      });
      // The list's columns as of the wait: the model, no call started yet, the first response's tokens.
      expect(listed).toMatchObject({
        turnId,
        status: 'running',
        conversationId,
        waitingForApproval: true,
        model: 'scripted',
        toolCalls: 0,
        tokens: 15,
      });
      const raw = await pollFor('a raw visibility query to find the waiting turn', async () => {
        const found = await collect(
          client.client.workflow.list({
            query: `DurableTurnWaitingForApproval = true AND WorkflowId = '${turnId}'`,
          }),
        );
        return found.length > 0 ? found : undefined;
      });
      expect(raw.map((e) => e.workflowId)).toEqual([turnId]);

      await turn.approve('d1');
      const result = await turn.result();
      expect(result.status).toBe('completed');
      expect(result.text).toBe('deployed');
      expect(result.outputs).toEqual([
        expect.objectContaining({ toolCallId: 'd1', status: 'ok', content: 'deployed prod', attempts: 1 }),
      ]);
      expect(deployed.filter((id) => id === 'd1')).toHaveLength(1);

      const described = await client.client.workflow.getHandle(turnId).describe();
      expect(described.typedSearchAttributes.get(turnStatusKey)).toBe('completed');
      expect(described.typedSearchAttributes.get(waitingForApprovalKey)).toBe(false);
      expect(described.typedSearchAttributes.get(conversationIdKey)).toBe(conversationId);
      const inConversation = await pollFor('the conversation list to show the turn completed', async () => {
        const turns = await client.list({ conversationId });
        return turns[0]?.status === 'completed' ? turns : undefined;
      });
      expect(inConversation).toEqual([
        expect.objectContaining({
          turnId,
          status: 'completed',
          conversationId,
          waitingForApproval: false,
          model: 'scripted',
          toolCalls: 1,
          tokens: 41,
        }),
      ]);
      // A client lists its own task queue's turns: another queue's (its workers, its agents) are not its.
      // Visibility has listed the turn above, so an empty answer here is the filter, not lag.
      expect(await kit.client(kit.taskQueue('other-queue')).list({ conversationId })).toEqual([]);
    });
  });

  test('a rejected call gets an explicit error output with the reason, is never run, and the turn carries on', async () => {
    const taskQueue = kit.taskQueue('reject');
    const model = scriptedModel([
      { toolCalls: [{ id: 'r1', name: 'deploy', args: { target: 'prod' } }] },
      { toolCalls: [{ id: 'r2', name: 'echo', args: { text: 'after the rejection' } }] },
      { text: 'gave up on deploying' },
    ]);
    const worker = await kit.worker({ taskQueue, tools, model });
    await worker.runUntil(async () => {
      const turn = await kit
        .client(taskQueue)
        .start({ turnId: uniqueTurnId('reject'), input: 'deploy to prod', model: 'scripted' });
      await pollFor('the turn to wait for approval', async () =>
        (await turn.state()).phase === 'awaiting-approval' ? true : undefined,
      );
      await turn.reject('r1', 'too risky');
      const result = await turn.result();

      expect(result.status).toBe('completed');
      expect(result.text).toBe('gave up on deploying');
      expect(result.outputs.map((o) => [o.toolCallId, o.status, o.content])).toEqual([
        ['r1', 'error', 'the call was rejected by an approver: too risky'],
        ['r2', 'ok', 'echo: after the rejection'],
      ]);
      expect(result.outputs[0]).toMatchObject({ attempts: 0, errorType: 'rejected' });
      expect(deployed).not.toContain('r1');
      // The model's next request carried the rejection as the call's result.
      const secondRequest = model.requests.find((r) => r.responseIndex === 1);
      expect(JSON.stringify(secondRequest?.messages)).toContain(
        'the call was rejected by an approver: too risky',
      );
    });
  });

  test('an approval for an unknown call or a call that is not waiting is refused by the workflow with a clear error; an empty call id is refused before anything is sent', async () => {
    const taskQueue = kit.taskQueue('bad-approval');
    const model = scriptedModel([
      {
        toolCalls: [
          { id: 'e1', name: 'echo', args: { text: 'first' } },
          { id: 'd1', name: 'deploy', args: { target: 'prod', ms: 1_500 } },
        ],
      },
      { text: 'done' },
    ]);
    const worker = await kit.worker({ taskQueue, tools, model });
    await worker.runUntil(async () => {
      const client = kit.client(taskQueue);
      const turn = await client.start({
        turnId: uniqueTurnId('bad-approval'),
        input: 'go',
        model: 'scripted',
      });
      await pollFor('the turn to wait for approval', async () =>
        (await turn.state()).phase === 'awaiting-approval' ? true : undefined,
      );

      const refusal = async (attempt: Promise<unknown>) =>
        messageChain(
          await attempt.then(
            () => undefined,
            (e) => e,
          ),
        );
      expect(await refusal(turn.approve('ghost'))).toMatch(/tool call "ghost" is not waiting for approval/);
      // e1 already ran (it was a wave of its own before the deploy).
      expect(await refusal(turn.approve('e1'))).toMatch(/tool call "e1" is not waiting for approval/);
      // Refused updates change nothing: the call still waits.
      const state = await turn.state();
      expect(state.calls.find((c) => c.toolCallId === 'd1')?.phase).toBe('awaiting-approval');

      await turn.approve('d1');
      // Approved and running now (the deploy takes 1.5 s): a second decision is refused.
      expect(await refusal(turn.reject('d1', 'changed my mind'))).toMatch(
        /tool call "d1" is not waiting for approval/,
      );

      // Client-side: the handle of a turn that does not exist refuses before any request is made.
      const nowhere = client.attach(uniqueTurnId('no-such-turn'));
      await expect(nowhere.approve('')).rejects.toThrow(/malformed approval: toolCallId/);
      await expect(turn.approve('')).rejects.toThrow(/malformed approval: toolCallId/);

      const result = await turn.result();
      expect(result.status).toBe('completed');
      expect(result.outputs.map((o) => [o.toolCallId, o.status])).toEqual([
        ['e1', 'ok'],
        ['d1', 'ok'],
      ]);
    });
  });

  test('mid-wave, the state shows the tools phase, the current wave, each call with its status, attempts and start time, usage and the budget left', async () => {
    const taskQueue = kit.taskQueue('mid-wave');
    const model = scriptedModel([
      {
        toolCalls: [
          { id: 'a', name: 'read_file', args: { path: 'a', ms: 10 } },
          { id: 'b', name: 'read_file', args: { path: 'b', ms: 3_000 } },
          { id: 'c', name: 'write_file', args: { path: 'c', ms: 10 } },
        ],
        usage: { inputTokens: 12, outputTokens: 7 },
      },
      { text: 'done', usage: { inputTokens: 20, outputTokens: 3 } },
    ]);
    const worker = await kit.worker({ taskQueue, tools, model });
    await worker.runUntil(async () => {
      const turn = await kit.client(taskQueue).start({
        turnId: uniqueTurnId('mid-wave'),
        input: 'read two, write one',
        model: 'scripted',
        budget: { maxToolCalls: 10, maxModelResponses: 4 },
      });
      const before = Date.now();
      // Calls start while the response still streams; wait until the response is recorded too.
      const state = await pollFor('a finished fast read beside the running slow read', async () => {
        const s = await turn.state();
        const a = s.calls.find((c) => c.toolCallId === 'a');
        const b = s.calls.find((c) => c.toolCallId === 'b');
        return a?.status === 'ok' && b?.phase === 'running' && s.spent.modelResponses === 1 ? s : undefined;
      });

      expect(state).toMatchObject({
        phase: 'tools',
        status: 'running',
        responseIndex: 1,
        currentWave: 0,
        usage: { inputTokens: 12, outputTokens: 7 },
        spent: { modelResponses: 1, toolCalls: 2, tokens: 19 },
        outputs: 1,
      });
      expect(state.budgetLeft).toEqual({ modelResponses: 3, toolCalls: 8 });
      const [a, b, c] = state.calls;
      expect(a).toMatchObject({
        toolCallId: 'a',
        toolName: 'read_file',
        wave: 0,
        phase: 'done',
        status: 'ok',
      });
      expect(a?.attempts).toBe(1);
      expect(a?.firstStartedAt).toEqual(expect.any(Number));
      expect(b).toMatchObject({ toolCallId: 'b', wave: 0, phase: 'running', attempts: 1 });
      expect(b?.status).toBeUndefined();
      expect(b?.firstStartedAt).toEqual(expect.any(Number));
      expect(Math.abs((b?.firstStartedAt ?? 0) - before)).toBeLessThan(30_000);
      expect(c).toMatchObject({
        toolCallId: 'c',
        toolName: 'write_file',
        wave: 1,
        phase: 'pending',
        attempts: 0,
      });
      expect(c?.firstStartedAt).toBeUndefined();
      expect(c?.status).toBeUndefined();

      const result = await turn.result();
      expect(result.status).toBe('completed');
      expect(result.outputs.map((o) => o.status)).toEqual(['ok', 'ok', 'ok']);
      const after = await turn.state();
      expect(after).toMatchObject({ phase: 'finished', status: 'completed', outputs: 3 });
      expect(after.budgetLeft).toEqual({ modelResponses: 2, toolCalls: 7 });
    });
  });
});
