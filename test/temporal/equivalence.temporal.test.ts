import { defineTool, scriptedModel, type TranscriptEvent, type TurnResult } from 'durable-turns';
import { z } from 'zod';
import type { ConformanceHarness, TurnSpec } from '../conformance/harness';
import { inProcessHarness } from '../conformance/in-process-harness';
import { sleep, uniqueTurnId } from '../conformance/support';
import { closeTemporalHarness, openTemporalHarness, temporalHarness } from '../conformance/temporal-harness';

beforeAll(openTemporalHarness);
afterAll(closeTemporalHarness);

/**
 * The same script through both executors must record the same transcript events — the engine
 * decides, the hosts only carry out. Each scenario makes fresh tools and a fresh model per run (a
 * scripted model counts its attempts), runs, and the events are compared whole, with the turn id
 * (unique per run) the only thing normalised.
 */
interface Scenario {
  spec: (turnId: string) => TurnSpec;
  /** Steers the running turn (e.g. cancels once its calls run); resolves when done steering. */
  steer?: (turn: { cancel(): Promise<void> }, probe: Probe) => Promise<void>;
}

interface Probe {
  started: string[];
}

const read = (probe: Probe) =>
  defineTool({
    name: 'read',
    description: 'Reads',
    input: z.object({ path: z.string() }),
    concurrencySafe: true,
    retrySafe: true,
    execute: ({ path }, ctx) => {
      probe.started.push(ctx.toolCallId);
      return `contents of ${path}`;
    },
  });

const deploy = defineTool({
  name: 'deploy',
  description: 'Deploys (needs approval)',
  input: z.object({ target: z.string() }),
  requiresApproval: true,
  execute: ({ target }) => `deployed ${target}`,
});

/** Keeps going until cancelled; then `finishMs` more and done (an effect already under way), or stops. */
const slow = (probe: Probe) =>
  defineTool({
    name: 'slow',
    description: 'Runs until cancelled',
    input: z.object({ finishMs: z.number().optional() }),
    concurrencySafe: true,
    execute: async ({ finishMs }, ctx) => {
      probe.started.push(ctx.toolCallId);
      while (!ctx.signal.aborted) {
        ctx.heartbeat();
        await sleep(20);
      }
      if (finishMs === undefined) throw new Error('stopped by the cancel');
      await sleep(finishMs);
      return 'finished after the cancel';
    },
  });

const scenarios: Record<string, (probe: Probe) => Scenario> = {
  'a model retry': (probe) => ({
    spec: (turnId) => ({
      turnId,
      input: 'go',
      tools: [read(probe)],
      modelRetry: { maxAttempts: 3, initialDelayMs: 10 },
      model: scriptedModel([
        { failFirst: 1, toolCalls: [{ id: 'a', name: 'read', args: { path: 'a' } }] },
        { text: 'done' },
      ]),
    }),
  }),
  'a broken stream after two accepted calls': (probe) => ({
    spec: (turnId) => ({
      turnId,
      input: 'go',
      tools: [read(probe)],
      model: scriptedModel([
        {
          parts: [
            { type: 'text-delta', delta: 'reading' },
            { type: 'tool-call', toolCallId: 'a', toolName: 'read', input: '{"path":"a"}' },
            { type: 'tool-call', toolCallId: 'b', toolName: 'read', input: '{"path":"b"}' },
            { type: 'error', message: 'connection reset', retryable: true, delayMs: 50 },
          ],
        },
        { text: 'carried on' },
      ]),
    }),
  }),
  'a cancel mid-wave with a tool finishing after the cancel': (probe) => ({
    spec: (turnId) => ({
      turnId,
      input: 'go',
      tools: [read(probe), slow(probe)],
      model: scriptedModel([
        { toolCalls: [{ id: 'r', name: 'read', args: { path: 'r' } }] },
        {
          toolCalls: [
            { id: 'done-late', name: 'slow', args: { finishMs: 100 } },
            { id: 'stops', name: 'slow', args: {} },
          ],
        },
        { text: 'never asked' },
      ]),
    }),
    steer: async (turn) => {
      const deadline = Date.now() + 20_000;
      while (
        !(probe.started.includes('done-late') && probe.started.includes('stops')) &&
        Date.now() < deadline
      )
        await sleep(20);
      await turn.cancel();
    },
  }),
  'an approval': (probe) => ({
    spec: (turnId) => ({
      turnId,
      input: 'go',
      tools: [read(probe), deploy],
      approver: async () => ({ approved: true }),
      model: scriptedModel([
        {
          toolCalls: [
            { id: 'a', name: 'read', args: { path: 'a' } },
            { id: 'd', name: 'deploy', args: { target: 'prod' } },
          ],
        },
        { text: 'deployed' },
      ]),
    }),
  }),
  'a budget stop': (probe) => ({
    spec: (turnId) => ({
      turnId,
      input: 'go',
      tools: [read(probe)],
      dispatch: { mode: 'sequential' },
      budget: { maxToolCalls: 2 },
      model: scriptedModel([
        {
          toolCalls: ['a', 'b', 'c'].map((id) => ({ id, name: 'read', args: { path: id } })),
        },
        { text: 'never asked' },
      ]),
    }),
  }),
};

async function run(harness: ConformanceHarness, name: string): Promise<TurnResult> {
  const probe: Probe = { started: [] };
  const scenario = scenarios[name]?.(probe);
  if (!scenario) throw new Error(`no scenario ${name}`);
  const turnId = uniqueTurnId('equivalence');
  const turn = await harness.start(scenario.spec(turnId));
  await scenario.steer?.({ cancel: () => turn.cancel() }, probe);
  const result = await turn.result;
  return { ...result, events: normalised(result.events, turnId) };
}

function normalised(events: readonly TranscriptEvent[], turnId: string): TranscriptEvent[] {
  return JSON.parse(JSON.stringify(events).split(JSON.stringify(turnId).slice(1, -1)).join('<turn>'));
}

describe('both executors record the same events for the same script', () => {
  test.each(Object.keys(scenarios))('%s', async (name) => {
    const inProcess = await run(inProcessHarness, name);
    const onTemporal = await run(temporalHarness, name);
    expect(onTemporal.status).toBe(inProcess.status);
    expect(onTemporal.events).toEqual(inProcess.events);
  });

  test('the scenarios end as they mean to: each status and its outputs', async () => {
    const outcomes = await Promise.all(
      Object.keys(scenarios).map(async (name) => {
        const result = await run(inProcessHarness, name);
        return [name, result.status, result.outputs.map((o) => `${o.toolCallId}:${o.status}`)];
      }),
    );
    expect(outcomes).toEqual([
      ['a model retry', 'completed', ['a:ok']],
      ['a broken stream after two accepted calls', 'completed', ['a:ok', 'b:ok']],
      [
        'a cancel mid-wave with a tool finishing after the cancel',
        'cancelled',
        ['r:ok', 'done-late:ok', 'stops:interrupted'],
      ],
      ['an approval', 'completed', ['a:ok', 'd:ok']],
      ['a budget stop', 'budget_exhausted', ['a:ok', 'b:ok', 'c:interrupted']],
    ]);
  });
});
