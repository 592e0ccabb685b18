import { defineTool, scriptedModel, ToolHealthRegistry, transcriptProblems } from 'durable-turns';
import { z } from 'zod';
import { type ConformanceHarness, runSpec } from './harness';
import { sleep, uniqueTurnId } from './support';

export function outputCases(harness: ConformanceHarness): void {
  describe(`every call gets exactly one output (${harness.name})`, () => {
    test('bad calls become explicit error outputs the model sees next, and the turn carries on', async () => {
      let ran = 0;
      const add = defineTool({
        name: 'add',
        description: 'Adds two numbers',
        input: z.object({ a: z.number(), b: z.number() }),
        concurrencySafe: true,
        execute: ({ a, b }) => {
          ran += 1;
          return { sum: a + b };
        },
      });
      const fails = defineTool({
        name: 'fails',
        description: 'Always throws',
        input: z.object({}),
        concurrencySafe: true,
        execute: () => {
          throw new TypeError('disk on fire');
        },
      });
      const slow = defineTool({
        name: 'slow',
        description: 'Takes too long',
        input: z.object({}),
        concurrencySafe: true,
        timeoutMs: 100,
        execute: () => sleep(2_000).then(() => 'too late'),
      });
      const model = scriptedModel([
        {
          toolCalls: [
            { id: 'ok', name: 'add', args: { a: 1, b: 2 } },
            { id: 'bad-args', name: 'add', args: { a: 'one', b: 2 } },
            { id: 'bad-json', name: 'add', args: '{"a": 1, "b": ' },
            { id: 'unknown', name: 'delete_everything', args: {} },
            { id: '', name: 'add', args: { a: 1, b: 1 } },
            { id: 'ok', name: 'add', args: { a: 5, b: 5 } },
            { id: 'throws', name: 'fails', args: {} },
            { id: 'timeout', name: 'slow', args: {} },
          ],
        },
        (request) => {
          const toolMessage = request.messages[request.messages.length - 1];
          return { text: `saw ${toolMessage?.role === 'tool' ? toolMessage.content.length : 0} results` };
        },
      ]);
      const result = await runSpec(harness, {
        turnId: uniqueTurnId('bad-calls'),
        input: 'go',
        tools: [add, fails, slow],
        model,
      });
      expect(result.status).toBe('completed');
      expect(result.text).toBe('saw 8 results');
      expect(ran).toBe(1);
      const byId = result.outputs.map((o) => [o.toolCallId, o.status, o.errorType ?? null]);
      expect(byId).toEqual([
        ['ok', 'ok', null],
        ['bad-args', 'error', 'invalid-arguments'],
        ['bad-json', 'error', 'invalid-arguments'],
        ['unknown', 'error', 'unknown-tool'],
        ['call_r0_4', 'error', 'invalid-call-id'],
        ['call_r0_5', 'error', 'invalid-call-id'],
        ['throws', 'error', 'TypeError'],
        ['timeout', 'error', 'timeout'],
      ]);
      expect(result.outputs[1]?.content).toMatch(/a/);
      expect(result.outputs[1]?.content).toMatch(/expected number/i);
      expect(result.outputs[3]?.content).toMatch(/available tools: add, fails, slow/);
      expect(result.outputs[6]?.content).toBe('disk on fire');
      expect(transcriptProblems(result.transcript)).toEqual([]);
    });

    test('an open circuit gives an explicit error without running the tool', async () => {
      let ran = 0;
      const flaky = defineTool({
        name: 'flaky',
        description: 'Fails',
        input: z.object({ n: z.number() }),
        execute: () => {
          ran += 1;
          throw new Error('upstream down');
        },
      });
      const health = new ToolHealthRegistry({ now: Date.now, failureThreshold: 2, coolDownMs: 60_000 });
      const result = await runSpec(harness, {
        turnId: uniqueTurnId('circuit'),
        input: 'go',
        tools: [flaky],
        health,
        model: scriptedModel([
          { toolCalls: [1, 2, 3, 4].map((n) => ({ id: `f${n}`, name: 'flaky', args: { n } })) },
          { text: 'gave up' },
        ]),
      });
      expect(ran).toBe(2);
      expect(result.outputs.map((o) => o.errorType)).toEqual([
        'Error',
        'Error',
        'circuit-open',
        'circuit-open',
      ]);
      expect(result.outputs[2]?.content).toMatch(/circuit open for flaky/);
      expect(health.snapshotOf('flaky')).toMatchObject({
        attempts: 2,
        failures: 2,
        circuit: 'open',
        status: 'unhealthy',
      });
    });
  });
}
