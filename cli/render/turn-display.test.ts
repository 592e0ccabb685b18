import {
  defineTool,
  InProcessExecutor,
  type JournalEntry,
  MemoryJournal,
  scriptedModel,
  turnConfigSchema,
} from 'durable-turns';
import pc from 'picocolors';
import { z } from 'zod';
import { progressLines } from './progress-lines';
import { renderFrame } from './render-frame';
import { applyTurnEvent, displayStateView, emptyTurnDisplay, type TurnDisplay } from './turn-display';
import type { TurnEvent } from './turn-event';

const plain = pc.createColors(false);
const context = { prefix: 'durable-turns --address 127.0.0.1:7233' };

const read = defineTool({
  name: 'read_file',
  description: 'Reads a file',
  input: z.object({ path: z.string() }),
  concurrencySafe: true,
  resources: ({ path }) => [`file:${path}`],
  execute: ({ path }) => `contents of ${path}`,
});
const write = defineTool({
  name: 'write_file',
  description: 'Writes a file',
  input: z.object({ path: z.string() }),
  resources: ({ path }) => [`file:${path}`],
  execute: ({ path }) => `wrote ${path}`,
});
const deploy = defineTool({
  name: 'deploy',
  description: 'Deploys (a person approves)',
  input: z.object({ target: z.string() }),
  requiresApproval: true,
  execute: ({ target }) => `deployed ${target}`,
});
const fail = defineTool({
  name: 'fail',
  description: 'Always fails',
  input: z.object({}),
  execute: () => {
    throw new Error('disk full');
  },
});

/** A real turn's journal, from the in-process executor: the same entries `watch()` yields. */
async function journalOf({ turnId, budget }: { turnId: string; budget?: { maxToolCalls: number } }) {
  const journal = new MemoryJournal();
  const executor = new InProcessExecutor({
    tools: [read, write, deploy, fail],
    journal,
    ...(budget && { budget }),
    approver: async () => ({ approved: true, reason: 'ok by me' }),
    model: scriptedModel([
      {
        text: 'Reading two files, writing one.',
        toolCalls: [
          { id: 'r1', name: 'read_file', args: { path: 'a.md' } },
          { id: 'r2', name: 'read_file', args: { path: 'b.md' } },
          { id: 'w1', name: 'write_file', args: { path: 'a.md' } },
        ],
        usage: { inputTokens: 100, outputTokens: 20 },
      },
      {
        text: 'Deploying.',
        toolCalls: [
          { id: 'd1', name: 'deploy', args: { target: 'prod' } },
          { id: 'f1', name: 'fail', args: {} },
        ],
        usage: { inputTokens: 200, outputTokens: 30 },
      },
      { text: 'All done.', usage: { inputTokens: 300, outputTokens: 10 } },
    ]),
  });
  await executor.runTurn({ turnId, input: 'go' });
  const session = await journal.open({ turnId, owner: 'reader', takeOver: true });
  return (await session.load()).entries;
}

function fold({ turnId, entries }: { turnId: string; entries: JournalEntry[] }): {
  display: TurnDisplay;
  events: TurnEvent[];
} {
  const display = emptyTurnDisplay({ turnId });
  const events = entries.map((entry, i): TurnEvent => ({ kind: 'entry', seq: i + 1, entry }));
  for (const event of events) applyTurnEvent({ display, event });
  return { display, events };
}

describe('the display a turn is drawn from', () => {
  test('keeps every wave of every response: calls that share a file wait for the next wave, each with its outcome', async () => {
    const { display } = fold({ turnId: 't1', entries: await journalOf({ turnId: 't1' }) });
    const shown = display.callOrder.map((id) => {
      const call = display.calls.get(id);
      return [id, call?.responseIndex, call?.wave, call?.status, call?.attempt];
    });
    expect(shown).toEqual([
      ['r1', 0, 0, 'ok', 1],
      ['r2', 0, 0, 'ok', 1],
      ['w1', 0, 1, 'ok', 1],
      ['d1', 1, 0, 'ok', 1],
      ['f1', 1, expect.any(Number), 'error', 1],
    ]);
    expect(display.calls.get('d1')?.decision).toEqual({ approved: true, reason: 'ok by me' });
    expect(display.finished).toEqual({ status: 'completed' });
    expect(display.responses.map((r) => r.text)).toEqual([
      'Reading two files, writing one.',
      'Deploying.',
      'All done.',
    ]);
  });

  test('gives usage and the budget left exactly as the turn reckons them', async () => {
    const { display } = fold({
      turnId: 't2',
      entries: await journalOf({ turnId: 't2', budget: { maxToolCalls: 9 } }),
    });
    const view = displayStateView({ display, now: Date.now() });
    expect(view?.usage).toEqual({ inputTokens: 600, outputTokens: 60 });
    expect(view?.spent).toMatchObject({ modelResponses: 3, toolCalls: 5, tokens: 660 });
    expect(view?.budgetLeft).toEqual({ toolCalls: 4 });
  });

  test('times a finished turn to its end when the watcher learned it, not to its last timed entry', () => {
    const opened = 1_700_000_000_000;
    const display = emptyTurnDisplay({ turnId: 't4' });
    const entries: JournalEntry[] = [
      { type: 'turn.started', turnId: 't4', input: [{ role: 'user', content: 'hi' }] },
      { type: 'turn.opened', at: opened, config: turnConfigSchema.parse({}) },
      { type: 'turn.finished', status: 'completed' },
    ] as JournalEntry[];
    const apply = (entry: JournalEntry, seq: number) =>
      applyTurnEvent({ display, event: { kind: 'entry', seq, entry } });
    apply(entries[0] as JournalEntry, 1);
    // Not opened yet: nothing to count from (it once counted from 1970).
    expect(displayStateView({ display, now: opened + 5 })).toBeUndefined();
    apply(entries[1] as JournalEntry, 2);
    expect(displayStateView({ display, now: opened + 1_500 })?.spent.wallTimeMs).toBe(1_500);
    apply(entries[2] as JournalEntry, 3);
    // A text-only turn: its only timed entry is its start; the end comes from its workflow's close.
    expect(displayStateView({ display, now: opened + 99_000 })?.spent.wallTimeMs).toBe(0);
    display.endedAt = opened + 7_600;
    expect(displayStateView({ display, now: opened + 99_000 })?.spent.wallTimeMs).toBe(7_600);
  });

  test('shows text streamed before the response completes, then the whole response in its place', () => {
    const display = emptyTurnDisplay({ turnId: 't3' });
    applyTurnEvent({
      display,
      event: {
        kind: 'entry',
        seq: 1,
        entry: { type: 'turn.started', turnId: 't3', input: [{ role: 'user', content: 'hi' }] },
      },
    });
    applyTurnEvent({
      display,
      event: { kind: 'entry', seq: 2, entry: { type: 'model.requested', responseIndex: 0 } },
    });
    applyTurnEvent({ display, event: { kind: 'text-delta', responseIndex: 0, text: 'Hel' } });
    applyTurnEvent({ display, event: { kind: 'text-delta', responseIndex: 0, text: 'lo' } });
    expect(display.responses[0]).toMatchObject({ text: 'Hello', streaming: true });
    applyTurnEvent({
      display,
      event: {
        kind: 'entry',
        seq: 3,
        entry: {
          type: 'model.responded',
          responseIndex: 0,
          message: { role: 'assistant', content: [{ type: 'text', text: 'Hello there.' }] },
          calls: [],
          usage: { inputTokens: 1, outputTokens: 2 },
          finishReason: 'stop',
        },
      },
    });
    applyTurnEvent({ display, event: { kind: 'text-delta', responseIndex: 0, text: ' late' } });
    expect(display.responses[0]).toMatchObject({ text: 'Hello there.', streaming: false });
  });
});

describe('the live frame', () => {
  test('draws each call with its short arguments, state, attempt and duration, and the usage line', async () => {
    const { display } = fold({ turnId: 't4', entries: await journalOf({ turnId: 't4' }) });
    const frame = renderFrame({ display, now: Date.now(), colors: plain, width: 100 }).join('\n');
    expect(frame).toMatch(/^✔ turn t4 completed/);
    expect(frame).toMatch(/wave 1\n {6}✔ read_file \{path: "a\.md"\} {2}ok · attempt 1 · \d+ ms/);
    expect(frame).toMatch(/wave 2\n {6}✔ write_file \{path: "a\.md"\} {2}ok · attempt 1/);
    expect(frame).toMatch(/✔ deploy \{target: "prod"\} {2}ok · approved · attempt 1/);
    expect(frame).toMatch(/✖ fail \{\} {2}error: \S+ · attempt 1[^\n]*\n {10}disk full/);
    expect(frame).toMatch(/660 tokens \(600 in, 60 out\) · 3 responses · 5 tool calls/);
  });

  test('a call waiting for approval is marked, and points to the commands printed above the frame', async () => {
    const entries = await journalOf({ turnId: 't#7' });
    const upTo = entries.findIndex((e) => e.type === 'tool.approval_requested');
    const { display } = fold({ turnId: 't#7', entries: entries.slice(0, upTo + 1) });
    const frame = renderFrame({ display, now: Date.now(), colors: plain, width: 100 }).join('\n');
    expect(frame).toMatch(/^● turn t#7 /);
    expect(frame).toContain('? deploy {target: "prod"}  awaiting approval');
    expect(frame).toContain('approve or reject d1: the commands are above');
    const printed = progressLines({
      display,
      event: { kind: 'entry', seq: upTo + 1, entry: entries[upTo] as JournalEntry },
      colors: plain,
      context,
    });
    expect(printed).toEqual([
      '  deploy #d1 {target: "prod"} waits for approval; answer with:',
      "    durable-turns --address 127.0.0.1:7233 approve 't#7' d1",
      "    durable-turns --address 127.0.0.1:7233 reject 't#7' d1 --reason '…'",
    ]);
  });

  test('a frame is cut to the terminal width: no line wraps', async () => {
    const { display } = fold({ turnId: 't5', entries: await journalOf({ turnId: 't5' }) });
    const lines = renderFrame({ display, now: Date.now(), colors: plain, width: 40 });
    expect(lines.filter((line) => line.length >= 40)).toEqual([]);
  });
});

describe('the plain log (output piped)', () => {
  test('says when each call starts and how it ended, asks for approval with the commands, and ends with the status and usage', async () => {
    const { events } = fold({ turnId: 't6', entries: await journalOf({ turnId: 't6' }) });
    const display = emptyTurnDisplay({ turnId: 't6' });
    const lines = events.flatMap((event) => {
      applyTurnEvent({ display, event });
      return progressLines({ display, event, colors: plain, context });
    });
    expect(lines).toEqual(
      expect.arrayContaining([
        'response 1: Reading two files, writing one. (100 in, 20 out; 3 calls)',
        '  wave 1: read_file #r1 {path: "a.md"} attempt 1 started',
        '  wave 2: write_file #w1 {path: "a.md"} attempt 1 started',
        '  deploy #d1 {target: "prod"} waits for approval; answer with:',
        '    durable-turns --address 127.0.0.1:7233 approve t6 d1',
        '  deploy #d1 approved: ok by me',
        'turn t6 completed',
      ]),
    );
    expect(lines.find((l) => l.startsWith('  fail #f1 error: disk full'))).toBeDefined();
    expect(lines.at(-1)).toMatch(/^660 tokens \(600 in, 60 out\) · 3 responses · 5 tool calls · \d/);
  });

  test("a sub-agent's waiting call is said once, when it comes, with the commands that answer it on this turn", () => {
    const display = emptyTurnDisplay({ turnId: 'p1' });
    const wait = (toolCallId: string) => ({
      turnId: 'p1/agent/r1',
      agentCallId: 'r1',
      toolCallId,
      toolName: 'deploy',
      input: { target: toolCallId },
      reason: 'deploy requires approval before it runs',
    });
    const said = (approvals: ReturnType<typeof wait>[]) => {
      const event: TurnEvent = { kind: 'sub-agent-approvals', approvals };
      applyTurnEvent({ display, event });
      return progressLines({ display, event, colors: plain, context });
    };
    expect(said([wait('d1')])).toEqual([
      '  sub-agent p1/agent/r1 (of r1): deploy #d1 {target: "d1"} waits for approval; answer with:',
      '    durable-turns --address 127.0.0.1:7233 approve p1 d1',
      "    durable-turns --address 127.0.0.1:7233 reject p1 d1 --reason '…'",
    ]);
    // Still waiting, and a second one comes: only the second is said.
    expect(said([wait('d1'), wait('d2')])).toHaveLength(3);
    expect(said([wait('d1'), wait('d2')])).toEqual([]);
    expect(said([])).toEqual([]);
  });
});
