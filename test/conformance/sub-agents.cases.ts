import {
  agentTool,
  defineTool,
  type ModelRequest,
  type ProgressEntry,
  scriptedModel,
  type TranscriptEvent,
  transcriptProblems,
} from 'durable-turns';
import { z } from 'zod';
import { pollFor } from '../temporal/support/poll';
import { type ConformanceHarness, type RunningTurn, runSpec } from './harness';
import { uniqueTurnId } from './support';

const isSubAgent = (request: ModelRequest) => request.turnId.includes('/agent/');

export function subAgentCases(harness: ConformanceHarness): void {
  describe(`sub-agents (${harness.name})`, () => {
    test('an agent as a tool: its answer is the call’s output, and its calls run in a turn of its own', async () => {
      const looked: string[] = [];
      const lookup = defineTool({
        name: 'lookup',
        description: 'Looks a key up',
        input: z.object({ key: z.string() }),
        concurrencySafe: true,
        execute: ({ key }, { turnId }) => {
          looked.push(`${turnId}: ${key}`);
          return `value of ${key}`;
        },
      });
      const model = scriptedModel(
        [
          (request) =>
            isSubAgent(request)
              ? { toolCalls: [{ id: 'l1', name: 'lookup', args: { key: 'x' } }] }
              : { toolCalls: [{ id: 'r1', name: 'researcher', args: { task: 'find x' } }] },
          (request) => ({ text: isSubAgent(request) ? 'x is the value of x' : 'the researcher found it' }),
        ],
        'scripted-agents',
      );
      const researcher = agentTool({
        name: 'researcher',
        description: 'Finds things out',
        instructions: 'You look things up.',
        model: model.name,
      });
      const turnId = uniqueTurnId('parent');
      const result = await runSpec(harness, { turnId, input: 'find x', tools: [researcher, lookup], model });

      const child = `${turnId}/agent/r1`;
      expect(result.status).toBe('completed');
      expect(result.outputs[0]).toMatchObject({
        toolCallId: 'r1',
        status: 'ok',
        content: 'x is the value of x',
      });
      expect(looked).toEqual([`${child}: x`]);
      const first = model.requests.find((r) => r.turnId === child && r.responseIndex === 0);
      expect(first?.messages).toEqual([
        { role: 'system', content: 'You look things up.' },
        { role: 'user', content: 'find x' },
      ]);
    });

    test('a sub-agent’s call that needs approval is asked of the parent’s approver, with the sub-agent’s turn id and its parent', async () => {
      const deploy = defineTool({
        name: 'deploy',
        description: 'Deploys',
        input: z.object({ target: z.string() }),
        requiresApproval: true,
        execute: ({ target }) => `deployed ${target}`,
      });
      const model = scriptedModel(
        [
          (request) =>
            isSubAgent(request)
              ? { toolCalls: [{ id: 'd1', name: 'deploy', args: { target: 'staging' } }] }
              : { toolCalls: [{ id: 'r1', name: 'releaser', args: { task: 'ship it' } }] },
          (request) => ({ text: isSubAgent(request) ? 'shipped to staging' : 'released' }),
        ],
        'scripted-agents',
      );
      const releaser = agentTool({ name: 'releaser', description: 'Releases', model: model.name });
      const turnId = uniqueTurnId('parent-approval');
      const asked: string[] = [];
      const result = await runSpec(harness, {
        turnId,
        input: 'release',
        tools: [releaser, deploy],
        model,
        approver: async (request) => {
          asked.push(
            `${request.turnId} ${request.toolCallId} for ${request.parent?.turnId} ${request.parent?.toolCallId}`,
          );
          return { decision: 'approve', by: 'ops' };
        },
      });
      // On Temporal it is asked from the parent's state, and decided on the parent (sent on to it).
      expect(asked).toEqual([`${turnId}/agent/r1 d1 for ${turnId} r1`]);
      expect(result.outputs[0]).toMatchObject({ status: 'ok', content: 'shipped to staging' });
    });

    test('a sub-agent’s budget is its tool’s, within what its parent has left when it starts', async () => {
      const lookup = defineTool({
        name: 'lookup',
        description: 'Looks a key up',
        input: z.object({ key: z.string() }),
        concurrencySafe: true,
        execute: ({ key }) => `value of ${key}`,
      });
      // The sub-agent never stops looking things up: only its budget ends it.
      const model = scriptedModel(
        Array.from(
          { length: 12 },
          (_, i) => (request: ModelRequest) =>
            isSubAgent(request)
              ? { toolCalls: [{ id: `l${i}`, name: 'lookup', args: { key: `k${i}` } }] }
              : i === 0
                ? { toolCalls: [{ id: 'r1', name: 'researcher', args: { task: 'dig' } }] }
                : { text: 'stopped digging' },
        ),
        'scripted-agents',
      );
      const researcher = agentTool({
        name: 'researcher',
        description: 'Digs',
        model: model.name,
        budget: { maxModelResponses: 10 },
      });
      const turnId = uniqueTurnId('parent-budget');
      const result = await runSpec(harness, {
        turnId,
        input: 'dig',
        tools: [researcher, lookup],
        model,
        budget: { maxModelResponses: 4 },
      });
      const child = `${turnId}/agent/r1`;
      // Within what the parent had left when the sub-agent started (4, or 3 once its first response
      // was recorded: the call may start while that response streams), not the tool's 10.
      const asked = model.requests.filter((r) => r.turnId === child).length;
      expect(asked).toBeGreaterThanOrEqual(3);
      expect(asked).toBeLessThanOrEqual(4);
      expect(result.outputs[0]).toMatchObject({ status: 'error' });
      expect(String(result.outputs[0]?.content)).toMatch(/ended budget_exhausted/);
    });

    test('a cancel of the parent reaches the tool its running sub-agent runs, and every call gets a true output', async () => {
      let started: () => void = () => {};
      const running = new Promise<void>((resolve) => {
        started = resolve;
      });
      const aborted: string[] = [];
      const wait = defineTool({
        name: 'wait',
        description: 'Waits until stopped',
        input: z.object({}),
        execute: (_args, { signal, turnId }) =>
          new Promise((_resolve, reject) => {
            started();
            signal.addEventListener('abort', () => {
              aborted.push(turnId);
              reject(new Error('stopped'));
            });
          }),
      });
      const model = scriptedModel(
        [
          (request) =>
            isSubAgent(request)
              ? { toolCalls: [{ id: 'w1', name: 'wait', args: {} }] }
              : { toolCalls: [{ id: 'r1', name: 'worker', args: { task: 'wait' } }] },
          { text: 'never' },
        ],
        'scripted-agents',
      );
      const worker = agentTool({ name: 'worker', description: 'Works', model: model.name });
      const turnId = uniqueTurnId('parent-cancel');
      const turn = await harness.start({ turnId, input: 'go', tools: [worker, wait], model });
      await running;
      await turn.cancel();
      const result = await turn.result;
      expect(result.status).toBe('cancelled');
      expect(result.outputs).toEqual([expect.objectContaining({ toolCallId: 'r1', status: 'interrupted' })]);
      expect(aborted).toEqual([`${turnId}/agent/r1`]);
    });

    test('a background sub-agent: the parent goes on while it works, and its answer is delivered as a background call’s output', async () => {
      let release: () => void = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      const looked: string[] = [];
      const lookup = defineTool({
        name: 'lookup',
        description: 'Looks a key up',
        input: z.object({ key: z.string() }),
        concurrencySafe: true,
        execute: async ({ key }, { turnId }) => {
          looked.push(`${turnId}: ${key}`);
          // The sub-agent's lookup takes until the test lets it finish: its parent goes on meanwhile.
          if (turnId.includes('/agent/')) await released;
          return `${key} is 42`;
        },
      });
      const model = scriptedModel(
        [
          (request) =>
            isSubAgent(request)
              ? { toolCalls: [{ id: 'l1', name: 'lookup', args: { key: 'x' } }] }
              : { toolCalls: [{ id: 'r1', name: 'researcher', args: { task: 'find x' } }] },
          (request) =>
            isSubAgent(request)
              ? { text: 'x is 42' }
              : { toolCalls: [{ id: 'l2', name: 'lookup', args: { key: 'y' } }] },
          { text: 'waiting for the researcher' },
          { text: 'the researcher says x is 42' },
        ],
        'scripted-agents',
      );
      const researcher = agentTool({
        name: 'researcher',
        description: 'Finds things out',
        model: model.name,
        background: true,
      });
      const turnId = uniqueTurnId('parent-background');
      const child = `${turnId}/agent/r1`;
      const turn = await harness.start({ turnId, input: 'find x', tools: [researcher, lookup], model });
      // The parent's model answered twice, and its own call ran, while the sub-agent's call is held
      // (or the sub-agent is still starting): it has not answered yet.
      await seen(turn, (e) => e.type === 'background.waiting');
      const meanwhile = {
        looked: [...looked],
        childAnswers: model.requests.filter((r) => r.turnId === child && r.responseIndex === 1).length,
      };
      release();
      const result = await turn.result;
      expect(meanwhile.looked).toContain(`${turnId}: y`);
      expect(meanwhile.childAnswers).toBe(0);

      const placeholder = `ok researcher is running in the background as call r1; its output will be delivered in a later message when it finishes.`;
      expect(eventShape(result.events)).toEqual([
        'turn.started',
        'requested 0',
        'responded 0 [r1]',
        `result r1: ${placeholder}`,
        'requested 1',
        'responded 1 [l2]',
        'result l2: ok y is 42',
        'requested 2',
        'responded 2 []',
        'delivered r1: ok x is 42',
        'requested 3',
        'responded 3 []',
        'finished completed',
      ]);
      expect(result).toMatchObject({ status: 'completed', text: 'the researcher says x is 42' });
      // Each call has one true output: the sub-agent's answer is r1's.
      expect(result.outputs.map((o) => [o.toolCallId, o.status, o.content])).toEqual([
        ['r1', 'ok', 'x is 42'],
        ['l2', 'ok', 'y is 42'],
      ]);
      const parentAsked = model.requests.filter((r) => r.turnId === turnId);
      expect(parentAsked.at(-1)?.messages.at(-1)).toEqual({
        role: 'user',
        content: [{ type: 'text', text: 'Background call r1 (researcher) finished:\nx is 42' }],
      });
      expect(transcriptProblems(result.transcript)).toEqual([]);
      // One sub-agent turn, which asked its model twice; what it last sent is a valid transcript.
      const childAsked = model.requests.filter((r) => r.turnId === child);
      expect(childAsked.map((r) => r.responseIndex)).toEqual([0, 1]);
      expect(transcriptProblems(childAsked[1]?.messages ?? [])).toEqual([]);
      expect([...looked].sort()).toEqual([`${turnId}: y`, `${child}: x`].sort());
    });

    test('a sub-agent starts with the grants its parent has in force: a call the grant covers runs without asking', async () => {
      const ran: string[] = [];
      const deploy = defineTool({
        name: 'deploy',
        description: 'Deploys',
        input: z.object({ target: z.string() }),
        requiresApproval: true,
        execute: ({ target }, ctx) => {
          ran.push(`${ctx.turnId} ${target}`);
          return `deployed ${target}`;
        },
      });
      const model = scriptedModel(
        [
          (request) =>
            isSubAgent(request)
              ? { toolCalls: [{ id: 'd2', name: 'deploy', args: { target: 'prod' } }] }
              : { toolCalls: [{ id: 'd1', name: 'deploy', args: { target: 'staging' } }] },
          (request) =>
            isSubAgent(request)
              ? { text: 'shipped to prod' }
              : { toolCalls: [{ id: 'r1', name: 'releaser', args: { task: 'ship to prod' } }] },
          { text: 'released' },
        ],
        'scripted-agents',
      );
      const releaser = agentTool({ name: 'releaser', description: 'Releases', model: model.name });
      const turnId = uniqueTurnId('inherited-grant');
      const asked: string[] = [];
      const result = await runSpec(harness, {
        turnId,
        input: 'stage, then release',
        tools: [releaser, deploy],
        model,
        // The parent's own deploy is approved "always": the sub-agent's deploy is not asked.
        approver: async (request) => {
          asked.push(`${request.turnId} ${request.toolCallId}`);
          return { decision: 'approve', by: 'ops', remember: {} };
        },
      });
      expect(asked).toEqual([`${turnId} d1`]);
      expect(ran).toEqual([`${turnId} staging`, `${turnId}/agent/r1 prod`]);
      expect(result.outputs.map((o) => [o.toolCallId, o.status, o.content])).toEqual([
        ['d1', 'ok', 'deployed staging'],
        ['r1', 'ok', 'shipped to prod'],
      ]);
    });

    test('a grant revoked on the parent ends in its running sub-agent too: the sub-agent’s next covered call asks again', async () => {
      let open = () => {};
      const opened = new Promise<void>((resolve) => {
        open = resolve;
      });
      let entered = false;
      const hold = defineTool({
        name: 'hold',
        description: 'Holds until the test lets go',
        input: z.object({}),
        execute: async () => {
          entered = true;
          await opened;
          return 'held';
        },
      });
      const deploy = defineTool({
        name: 'deploy',
        description: 'Deploys',
        input: z.object({ target: z.string() }),
        requiresApproval: true,
        execute: ({ target }) => `deployed ${target}`,
      });
      const call = (id: string, name: string, args: object) => ({ toolCalls: [{ id, name, args }] });
      const model = scriptedModel(
        [
          (r) =>
            isSubAgent(r) ? call('d2', 'deploy', { target: 'b' }) : call('d1', 'deploy', { target: 'a' }),
          (r) => (isSubAgent(r) ? call('h1', 'hold', {}) : call('r1', 'releaser', { task: 'ship' })),
          (r) => (isSubAgent(r) ? call('d3', 'deploy', { target: 'c' }) : { text: 'released' }),
          { text: 'done' },
        ],
        'scripted-agents',
      );
      const releaser = agentTool({ name: 'releaser', description: 'Releases', model: model.name });
      const turnId = uniqueTurnId('revoked-grant');
      const child = `${turnId}/agent/r1`;
      const asked: string[] = [];
      const turn = await harness.start({
        turnId,
        input: 'release',
        tools: [releaser, deploy, hold],
        model,
        approver: async (request) => {
          asked.push(`${request.turnId} ${request.toolCallId}`);
          return request.toolCallId === 'd1'
            ? { decision: 'approve', by: 'ops', remember: {} }
            : { decision: 'reject', reason: 'not any more', by: 'ops' };
        },
      });
      // The sub-agent ran d2 by the grant it took, and now holds: the grant is revoked on the parent.
      await pollFor('the sub-agent to hold', async () => (entered ? true : undefined));
      await turn.revoke(`${turnId}/d1`);
      open();
      const result = await turn.result;
      expect(asked).toEqual([`${turnId} d1`, `${child} d3`]);
      expect(result.outputs.map((o) => [o.toolCallId, o.status])).toEqual([
        ['d1', 'ok'],
        ['r1', 'ok'],
      ]);
    });
  });
}

/** Resolves once the turn's journal (as its executor's watch gives it) has an entry that matches. */
async function seen(turn: RunningTurn, match: (e: ProgressEntry['entry']) => boolean): Promise<void> {
  for await (const event of turn.watch({ live: false }))
    if (event.kind === 'entry' && match(event.entry)) return;
  throw new Error('the turn ended before the entry awaited');
}

/** The transcript events in a form both executors must agree on exactly. */
function eventShape(events: readonly TranscriptEvent[]): string[] {
  return events.map((e) => {
    switch (e.type) {
      case 'model.requested':
        return `requested ${e.responseIndex}`;
      case 'model.responded':
        return `responded ${e.responseIndex} [${e.calls.map((c) => c.toolCallId).join(',')}]`;
      case 'tool.completed':
        return `result ${e.toolCallId}: ${e.output.status} ${String(e.output.content)}`;
      case 'background.delivered':
        return `delivered ${e.deliveries.map((d) => `${d.toolCallId}: ${d.output.status} ${String(d.output.content)}`).join(' | ')}`;
      case 'turn.finished':
        return `finished ${e.status}`;
      default:
        return e.type;
    }
  });
}
