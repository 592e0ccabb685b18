import { agentTool, defineTool, type ModelRequest, scriptedModel } from 'durable-turns';
import { z } from 'zod';
import { type ConformanceHarness, runSpec } from './harness';
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

    test('a sub-agent’s call that needs approval is asked of the parent’s approver, with the sub-agent’s turn id', async () => {
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
          asked.push(`${request.turnId} ${request.toolCallId}`);
          return { decision: 'approve', by: 'ops' };
        },
      });
      expect(asked).toEqual([`${turnId}/agent/r1 d1`]);
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
  });
}
