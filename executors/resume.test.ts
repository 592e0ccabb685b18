import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  defineTool,
  InProcessExecutor,
  isTranscriptEvent,
  scriptedModel,
  transcriptProblems,
} from 'durable-turns';
import { z } from 'zod';
import { TurnEngine } from '../core';
import { startCrashChild } from '../test/support/executors/crash-child-process';
import {
  crashedOwner,
  crashScript,
  crashTools,
  finalText,
  ledgerRuns,
  slowSafeId,
  slowUnsafeId,
} from '../test/support/executors/crash-turn';
import { gatedScript, gatedTool, refusal, storedEntries } from '../test/support/executors/resume-fixtures';
import { driveStepByStep } from '../test/support/executors/step-by-step-driver';
import { SqliteJournal } from './journal/sqlite-journal';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'resume-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('a turn whose host was killed mid-wave', () => {
  it('resumes from its SQLite file: completed calls stay done, the retry-safe call reruns with the same key, the other ends outcome unknown', async () => {
    const path = join(dir, 'journal.db');
    const ledger = join(dir, 'ledger.txt');
    const turnId = 'crash-turn-1';
    const child = startCrashChild({ path, ledger, turnId });
    try {
      process.kill(await child.ready, 'SIGKILL');
      await child.exited;
    } finally {
      child.killGroup();
    }

    // The host died with both slow calls started and neither finished.
    const before = storedEntries(path, turnId);
    const finished = before.flatMap((e) => (e.type === 'tool.attempt_finished' ? [e.toolCallId] : []));
    const started = before.flatMap((e) => (e.type === 'tool.attempt_started' ? [e.toolCallId] : []));
    expect(new Set(started)).toEqual(new Set(['fast_a', slowSafeId, 'fast_b', slowUnsafeId]));
    expect(new Set(finished)).toEqual(new Set(['fast_a', 'fast_b']));
    expect(before.some((e) => e.type === 'turn.finished')).toBe(false);

    const journal = new SqliteJournal({ path });
    try {
      const model = crashScript();
      const recovery = new InProcessExecutor({
        tools: crashTools({ ledger, slowMs: 20 }),
        model,
        journal,
        owner: 'recovery-host',
      });
      // The dead host's lease has not lapsed: without takeOver the turn is refused, naming the holder.
      const refused = await refusal(recovery.resumeTurn({ turnId }));
      expect(refused.code).toBe('lease-held');
      expect(refused.message).toContain(crashedOwner);
      expect(storedEntries(path, turnId)).toEqual(before);

      const result = await recovery.resumeTurn({ turnId, takeOver: true });

      expect(result.status).toBe('completed');
      expect(result.text).toBe(finalText);
      expect(transcriptProblems(result.transcript)).toEqual([]);
      expect(model.requests.map((r) => r.responseIndex)).toEqual([1]);
      expect(result.outputs.map((o) => [o.toolCallId, o.status])).toEqual([
        ['fast_a', 'ok'],
        [slowSafeId, 'ok'],
        ['fast_b', 'ok'],
        [slowUnsafeId, 'interrupted'],
      ]);
      expect(result.outputs[3]).toMatchObject({
        errorType: 'outcome-unknown',
        content: expect.stringContaining('outcome unknown'),
        attempts: 1,
      });

      const runs = ledgerRuns(readFileSync(ledger, 'utf8'));
      expect(runs.get('fast_a')).toHaveLength(1);
      expect(runs.get('fast_b')).toHaveLength(1);
      expect(runs.get(slowSafeId)).toEqual([`${turnId}/${slowSafeId}`, `${turnId}/${slowSafeId}`]);
      expect(runs.get(slowUnsafeId)).toEqual([`${turnId}/${slowUnsafeId}`]);

      const after = storedEntries(path, turnId);
      expect(after.slice(0, before.length)).toEqual(before);
      expect(after.filter((e) => e.type === 'tool.attempt_lost')).toEqual([
        { type: 'tool.attempt_lost', toolCallId: slowSafeId, attempt: 1, rerun: true },
        { type: 'tool.attempt_lost', toolCallId: slowUnsafeId, attempt: 1, rerun: false },
      ]);
      expect(after.filter((e) => e.type === 'turn.finished')).toEqual([
        { type: 'turn.finished', status: 'completed' },
      ]);
      expect(result.events).toEqual(after.filter(isTranscriptEvent));
    } finally {
      journal.close();
    }
  });
});

describe('a turn whose host was killed while background calls ran', () => {
  it('resumes: the retry-safe background call reruns with the same key, the other is delivered as outcome unknown, and the model hears of both', async () => {
    const path = join(dir, 'journal.db');
    const ledger = join(dir, 'ledger.txt');
    const turnId = 'crash-turn-background';
    const child = startCrashChild({ path, ledger, turnId, background: true });
    try {
      process.kill(await child.ready, 'SIGKILL');
      await child.exited;
    } finally {
      child.killGroup();
    }
    const before = storedEntries(path, turnId);
    expect(before.filter((e) => e.type === 'background.waiting')).toHaveLength(1);

    const journal = new SqliteJournal({ path });
    try {
      const model = crashScript({ background: true });
      const recovery = new InProcessExecutor({
        tools: crashTools({ ledger, slowMs: 20, background: true }),
        model,
        journal,
        owner: 'recovery-host',
      });
      const result = await recovery.resumeTurn({ turnId, takeOver: true });

      expect(result.status).toBe('completed');
      expect(result.text).toBe(finalText);
      expect(transcriptProblems(result.transcript)).toEqual([]);
      expect(model.requests.map((r) => r.responseIndex)).toEqual([2, 3]);
      const byId = new Map(result.outputs.map((o) => [o.toolCallId, o]));
      expect(byId.get(slowSafeId)).toMatchObject({
        status: 'ok',
        content: 'report from https://example.test/report',
      });
      expect(byId.get(slowUnsafeId)).toMatchObject({ status: 'interrupted', errorType: 'outcome-unknown' });
      const runs = ledgerRuns(readFileSync(ledger, 'utf8'));
      expect(runs.get(slowSafeId)).toEqual([`${turnId}/${slowSafeId}`, `${turnId}/${slowSafeId}`]);
      expect(runs.get(slowUnsafeId)).toEqual([`${turnId}/${slowUnsafeId}`]);
      // Each background output delivered once, the payment's first (it was decided at the resume).
      const delivered = result.events.flatMap((e) =>
        e.type === 'background.delivered' ? [e.deliveries.map((d) => d.toolCallId)] : [],
      );
      expect(delivered).toEqual([[slowUnsafeId], [slowSafeId]]);
      expect(result.events).toEqual(storedEntries(path, turnId).filter(isTranscriptEvent));
    } finally {
      journal.close();
    }
  });
});

describe('a turn driven step by step, rebuilt from its journal before every step', () => {
  const script = () =>
    scriptedModel([
      {
        text: 'let me look',
        toolCalls: [
          { id: 'a', name: 'read_file', args: { path: 'x' } },
          { id: 'b', name: 'read_file', args: { path: 'y' } },
          { id: 'c', name: 'write_file', args: { path: 'z', content: 'new' } },
          { id: 'd', name: 'flaky_count', args: { n: 4 } },
          { id: 'e', name: 'read_file', args: { path: 'x' } },
        ],
      },
      {
        toolCalls: [
          { id: 'f', name: 'read_file', args: { path: 'z' } },
          { id: 'g', name: 'read_file', args: { path: 'z' } },
        ],
      },
      { text: 'done' },
    ]);
  const tools = () => {
    const read = defineTool({
      name: 'read_file',
      description: 'Reads a file',
      input: z.object({ path: z.string() }),
      concurrencySafe: true,
      retrySafe: true,
      resources: ({ path }) => [`file:${path}`],
      execute: ({ path }) => `contents of ${path}`,
    });
    const write = defineTool({
      name: 'write_file',
      description: 'Writes a file',
      input: z.object({ path: z.string(), content: z.string() }),
      resources: ({ path }) => [`file:${path}`],
      execute: ({ path, content }) => `wrote ${content.length} bytes to ${path}`,
    });
    const flaky = defineTool({
      name: 'flaky_count',
      description: 'Counts, but fails its first attempt',
      input: z.object({ n: z.number() }),
      concurrencySafe: true,
      retry: { maxAttempts: 3, initialDelayMs: 10 },
      execute: ({ n }, ctx) => {
        if (ctx.attempt === 1) throw new Error('transient failure');
        return { count: n };
      },
    });
    return [read, write, flaky];
  };

  it('gives the same transcript and outcome as an uninterrupted in-process run', async () => {
    const turnId = 'step-by-step';
    const uninterrupted = await new InProcessExecutor({ tools: tools(), model: script() }).runTurn({
      turnId,
      input: 'go',
    });

    const journal = new SqliteJournal({ path: join(dir, 'sim.db') });
    try {
      const session = await journal.open({ turnId, owner: 'simulator' });
      const sim = await driveStepByStep({
        turnId,
        input: 'go',
        tools: tools(),
        model: script(),
        config: { dispatch: { mode: 'parallel', maxConcurrency: 8 } },
        session,
      });

      // A parallel wave, a barrier, a retry that waited for its backoff, and a resource conflict.
      expect(sim.steps).toEqual([
        'model#0',
        'tools a#1,b#1',
        'tools c#1',
        'tools d#1,e#1',
        'wait',
        'tools d#2',
        'model#1',
        'tools f#1',
        'tools g#1',
        'model#2',
      ]);
      expect(sim.outcome.outputs.find((o) => o.toolCallId === 'd')).toMatchObject({
        status: 'ok',
        attempts: 2,
        content: { count: 4 },
      });
      const { events, ...outcome } = uninterrupted;
      expect(sim.outcome).toEqual(outcome);
      expect(sim.entries.filter(isTranscriptEvent)).toEqual(events);
      expect(transcriptProblems(sim.outcome.transcript)).toEqual([]);
    } finally {
      journal.close();
    }
  });
});

describe('one live owner per turn', () => {
  it('refuses a second executor that resumes a turn another executor is running', async () => {
    const path = join(dir, 'shared.db');
    const hostA = new SqliteJournal({ path });
    const hostB = new SqliteJournal({ path });
    try {
      const gated = gatedTool();
      const a = new InProcessExecutor({
        tools: [gated.tool],
        model: gatedScript(),
        journal: hostA,
        owner: 'host-a',
      });
      const b = new InProcessExecutor({
        tools: [gated.tool],
        model: gatedScript(),
        journal: hostB,
        owner: 'host-b',
      });
      const running = a.runTurn({ turnId: 'live', input: 'go' });
      await gated.started;

      const refused = await refusal(b.resumeTurn({ turnId: 'live' }));
      expect(refused.code).toBe('lease-held');
      expect(refused.message).toContain('host-a');
      const refusedStart = await refusal(b.runTurn({ turnId: 'live', input: 'go' }));
      expect(refusedStart.code).toBe('lease-held');

      gated.open();
      await expect(running).resolves.toMatchObject({ status: 'completed', text: 'done' });
    } finally {
      hostA.close();
      hostB.close();
    }
  });

  it('refuses runTurn on a turn id that is already in the journal and says to use resumeTurn', async () => {
    const journal = new SqliteJournal({ path: join(dir, 'existing.db') });
    try {
      const gated = gatedTool();
      gated.open();
      const options = { tools: [gated.tool], journal };
      await new InProcessExecutor({ ...options, model: gatedScript(), owner: 'host-a' }).runTurn({
        turnId: 'done-turn',
        input: 'go',
      });
      for (const owner of ['host-a', 'host-b']) {
        const again = new InProcessExecutor({ ...options, model: gatedScript(), owner });
        await expect(again.runTurn({ turnId: 'done-turn', input: 'go' })).rejects.toThrow(
          'turn done-turn already exists in the journal; call resumeTurn to continue it',
        );
      }
    } finally {
      journal.close();
    }
  });

  it('refuses runTurn with the id of a turn the same executor is still running, and that turn still completes', async () => {
    const journal = new SqliteJournal({ path: join(dir, 'same-owner.db') });
    try {
      const gated = gatedTool();
      const executor = new InProcessExecutor({
        tools: [gated.tool],
        model: gatedScript(),
        journal,
        owner: 'host-a',
      });
      const running = executor.runTurn({ turnId: 'live', input: 'go' });
      await gated.started;
      await expect(executor.runTurn({ turnId: 'live', input: 'go' })).rejects.toThrow(/resumeTurn/);
      gated.open();
      await expect(running).resolves.toMatchObject({ status: 'completed', text: 'done' });
    } finally {
      journal.close();
    }
  });
});

describe('a journal that ends with a model request and no response', () => {
  it('resumes by asking the model again for the same response index, without recording a second intent', async () => {
    const path = join(dir, 'requested.db');
    const turnId = 'asked-once';
    const journal = new SqliteJournal({ path });
    try {
      const lost = await journal.open({ turnId, owner: 'lost-host' });
      const { engine, entries } = TurnEngine.start({ turnId, input: 'hello', now: Date.now() });
      const step = engine.next(Date.now());
      expect(step.entries).toEqual([{ type: 'model.requested', responseIndex: 0 }]);
      await lost.append([...entries, ...step.entries], 0);

      const gated = gatedTool();
      gated.open();
      const model = gatedScript();
      const result = await new InProcessExecutor({
        tools: [gated.tool],
        model,
        journal,
        owner: 'recovery-host',
      }).resumeTurn({ turnId, takeOver: true });

      expect(result).toMatchObject({ status: 'completed', text: 'done', modelResponses: 2 });
      expect(model.requests.map((r) => [r.responseIndex, r.idempotencyKey])).toEqual([
        [0, `${turnId}/model/0`],
        [1, `${turnId}/model/1`],
      ]);
      const stored = storedEntries(path, turnId);
      expect(stored.filter((e) => e.type === 'model.requested')).toEqual([
        { type: 'model.requested', responseIndex: 0 },
        { type: 'model.requested', responseIndex: 1 },
      ]);
      expect(transcriptProblems(result.transcript)).toEqual([]);
    } finally {
      journal.close();
    }
  });
});

describe('resuming turns that need no recovery', () => {
  it('hands back the outcome of a finished turn without asking the model or running a tool', async () => {
    const journal = new SqliteJournal({ path: join(dir, 'finished.db') });
    try {
      const gated = gatedTool();
      gated.open();
      const first = await new InProcessExecutor({
        tools: [gated.tool],
        model: gatedScript(),
        journal,
        owner: 'host-a',
      }).runTurn({ turnId: 'finished', input: 'go' });
      const model = gatedScript();
      const again = await new InProcessExecutor({
        tools: [gated.tool],
        model,
        journal,
        owner: 'host-b',
      }).resumeTurn({ turnId: 'finished' });
      expect(again).toEqual(first);
      expect(model.requests).toEqual([]);
    } finally {
      journal.close();
    }
  });

  it('refuses to resume a turn that is not in the journal and says to start it with runTurn', async () => {
    const journal = new SqliteJournal({ path: join(dir, 'empty.db') });
    try {
      const executor = new InProcessExecutor({ tools: [], model: scriptedModel([]), journal });
      await expect(executor.resumeTurn({ turnId: 'nobody' })).rejects.toThrow(
        'turn nobody is not in the journal; start it with runTurn',
      );
    } finally {
      journal.close();
    }
  });
});
