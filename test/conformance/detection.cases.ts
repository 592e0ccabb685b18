import { defineTool, scriptedModel } from 'durable-turns';
import { z } from 'zod';
import { type ConformanceHarness, runSpec } from './harness';
import { uniqueTurnId } from './support';

function counterTools() {
  let n = 0;
  const status = defineTool({
    name: 'status',
    description: 'Same answer every time',
    input: z.object({ job: z.string() }),
    concurrencySafe: true,
    execute: () => 'still running',
  });
  const tick = defineTool({
    name: 'tick',
    description: 'New answer every time',
    input: z.object({}),
    concurrencySafe: true,
    execute: () => ++n,
  });
  return [status, tick];
}

/** A model that asks for the same call `times` times, one per response, then stops. */
function repeating(times: number, call: { name: string; args: unknown }) {
  return scriptedModel([
    ...Array.from({ length: times }, (_, i) => ({ toolCalls: [{ id: `r${i}`, ...call }] })),
    { text: 'stopped by myself' },
  ]);
}

export function detectionCases(harness: ConformanceHarness): void {
  describe(`loop detection (${harness.name})`, () => {
    test('the same call with the same result warns the model at the third repeat and stops the turn at the tenth', async () => {
      const result = await runSpec(harness, {
        turnId: uniqueTurnId('loop'),
        input: 'go',
        tools: counterTools(),
        model: repeating(12, { name: 'status', args: { job: 'j1' } }),
      });
      expect(result.status).toBe('loop_detected');
      expect(result.outputs).toHaveLength(10);
      expect(result.outputs[1]?.notice).toBeUndefined();
      expect(result.outputs[2]?.notice).toMatch(/loop warning.*status was called 3 times/i);
      expect(result.outputs[9]?.notice).toMatch(/loop detected/);
      const lastTool = result.transcript[result.transcript.length - 1];
      expect(lastTool?.role).toBe('tool');
    });

    test('repeating a call that returns something new each time is progress, not a loop', async () => {
      const result = await runSpec(harness, {
        turnId: uniqueTurnId('progress'),
        input: 'go',
        tools: counterTools(),
        model: repeating(12, { name: 'tick', args: {} }),
      });
      expect(result.status).toBe('completed');
      expect(result.outputs.every((o) => o.notice === undefined)).toBe(true);
    });

    test('thresholds can be set per tool, and detection can be switched off', async () => {
      const strict = await runSpec(harness, {
        turnId: uniqueTurnId('loop-per-tool'),
        input: 'go',
        tools: counterTools(),
        detection: { perTool: { status: { warnAfter: 2, stopAfter: 4 } } },
        model: repeating(12, { name: 'status', args: { job: 'j1' } }),
      });
      expect(strict.status).toBe('loop_detected');
      expect(strict.outputs).toHaveLength(4);
      expect(strict.outputs[1]?.notice).toMatch(/loop warning/i);

      const off = await runSpec(harness, {
        turnId: uniqueTurnId('loop-off'),
        input: 'go',
        tools: counterTools(),
        detection: { enabled: false },
        model: repeating(12, { name: 'status', args: { job: 'j1' } }),
      });
      expect(off.status).toBe('completed');
      expect(off.outputs).toHaveLength(12);
    });

    test('a short cycle of calls repeating with the same results is detected too', async () => {
      const a = { name: 'status', args: { job: 'a' } };
      const b = { name: 'status', args: { job: 'b' } };
      const result = await runSpec(harness, {
        turnId: uniqueTurnId('cycle'),
        input: 'go',
        tools: counterTools(),
        detection: { warnAfter: 3, stopAfter: 4 },
        model: scriptedModel([
          ...Array.from({ length: 12 }, (_, i) => ({ toolCalls: [{ id: `c${i}`, ...(i % 2 ? b : a) }] })),
          { text: 'x' },
        ]),
      });
      expect(result.status).toBe('loop_detected');
    });
  });
}
