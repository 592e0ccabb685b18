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

/** A tool that reads one unchanging file, and one whose every answer is new. */
function longTurnTools() {
  const read = defineTool({
    name: 'read',
    description: 'Reads a file that does not change',
    input: z.object({ path: z.string() }),
    concurrencySafe: true,
    execute: ({ path }) => `contents of ${path}: the plan, unchanged`,
  });
  const step = defineTool({
    name: 'step',
    description: 'Does one new piece of work',
    input: z.object({ n: z.number() }),
    concurrencySafe: true,
    execute: ({ n }) => `step ${n} done`,
  });
  return [read, step];
}

/** A listing tool whose answer moves only in its last line, whatever directory it is asked for. */
function listingTool() {
  let calls = 0;
  return defineTool({
    name: 'ls',
    description: 'Lists a directory',
    input: z.object({ dir: z.string() }),
    concurrencySafe: true,
    execute: () => {
      calls += 1;
      const rows = Array.from({ length: 40 }, (_, i) => `src/module-${i}.ts  ${1000 + i * 37} bytes`);
      return `${rows.join('\n')}\nlisted at 10:0${calls}`;
    },
  });
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

    test('a long turn that re-reads the same file every 61 calls, with distinct calls between, completes without a warning', async () => {
      // 550 calls in 55 responses of ten: the re-reads (calls 0, 61, …, 549) are ten repeats of
      // one call with one result, but never two within the detector's window.
      const calls = Array.from({ length: 550 }, (_, k) =>
        k % 61 === 0
          ? { id: `c${k}`, name: 'read', args: { path: 'plan.md' } }
          : { id: `c${k}`, name: 'step', args: { n: k } },
      );
      const result = await runSpec(harness, {
        turnId: uniqueTurnId('long-rereads'),
        input: 'go',
        tools: longTurnTools(),
        model: scriptedModel([
          ...Array.from({ length: 55 }, (_, r) => ({ toolCalls: calls.slice(r * 10, r * 10 + 10) })),
          { text: 'all done' },
        ]),
      });
      expect(result.status).toBe('completed');
      expect(result.outputs).toHaveLength(550);
      expect(result.outputs.filter((o) => o.notice !== undefined)).toEqual([]);
      // 110 round trips on Temporal (55 requests, 55 waves): ~6 s quiet, over 60 s with two CPU
      // burners beside four test workers. The limit is a guard against a hang, not a speed check.
    }, 300_000);

    test('a tool whose results come back nearly the same three times in a row gets a warning, and the turn goes on', async () => {
      const result = await runSpec(harness, {
        turnId: uniqueTurnId('converging'),
        input: 'go',
        tools: [listingTool()],
        model: scriptedModel([
          ...['a', 'b', 'c', 'd'].map((dir) => ({
            toolCalls: [{ id: `ls-${dir}`, name: 'ls', args: { dir } }],
          })),
          { text: 'x' },
        ]),
      });
      expect(result.status).toBe('completed');
      expect(result.outputs.map((o) => o.notice === undefined)).toEqual([true, true, false, false]);
      expect(result.outputs[2]?.notice).toMatch(
        /loop warning.*ls returned nearly the same result 3 times in a row/,
      );
    });
  });
}
