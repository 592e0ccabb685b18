import { z } from 'zod';
import type { AttemptResult } from '../schema/attempt-result';
import type { JournalEntry } from '../schema/journal-entry';
import type { SubAgentSpent } from '../schema/tool-output';
import type { TurnConfigInput } from '../schema/turn-config';
import { defineTool } from '../tools/define-tool';
import { stableHash } from '../tools/stable-hash';
import { ToolRegistry } from '../tools/tool-registry';
import { respond as respondWith, type ScriptedCall } from './fixtures/respond';
import { TurnEngine } from './turn-engine';
import type { TurnState } from './turn-state';
import { turnStateView } from './turn-state-view';

const registry = new ToolRegistry([
  defineTool({
    name: 'researcher',
    description: 'Runs a sub-agent',
    input: z.object({ task: z.string() }),
    concurrencySafe: true,
    retrySafe: true,
    retry: { maxAttempts: 3, initialDelayMs: 100 },
    execute: () => 'ok',
  }),
]);

const research = (id: string): ScriptedCall => ({ id, name: 'researcher', args: { task: id } });
const spent = (modelResponses: number, toolCalls = 0, tokens = 0): SubAgentSpent => ({
  modelResponses,
  toolCalls,
  usage: { inputTokens: tokens, outputTokens: 0 },
});
const ok = (content: string, charge?: SubAgentSpent): AttemptResult => ({
  status: 'ok',
  content,
  resultHash: stableHash(content),
  ...(charge ? { spent: charge } : {}),
});
const failed = (content: string, charge?: SubAgentSpent, retryable = false): AttemptResult => ({
  status: 'error',
  content,
  errorType: 'Error',
  retryable,
  resultHash: stableHash(content),
  ...(charge ? { spent: charge } : {}),
});

/** A turn whose first response asked for these calls, started; the journal so far. */
function started(config: TurnConfigInput, calls: ScriptedCall[]) {
  const { engine, entries } = TurnEngine.start({ turnId: 't', input: 'go', config, now: 0 });
  const journal: JournalEntry[] = [...entries];
  const request = engine.next(0);
  journal.push(...request.entries);
  journal.push(...respondWith({ engine, registry }, 0, calls));
  const launched = engine.next(0);
  journal.push(...launched.entries);
  expect(launched.op.kind).toBe('run-tools');
  return { engine, journal };
}

function finish(engine: TurnEngine, journal: JournalEntry[], id: string, result: AttemptResult, attempt = 1) {
  journal.push(...engine.onToolAttemptFinished({ toolCallId: id, attempt, result, durationMs: 1, now: 0 }));
}

const viewOf = (engine: TurnEngine) => turnStateView(engine.view as TurnState, 0);

describe('a sub-agent’s spending charged to its parent', () => {
  it('counts in the turn’s responses, calls and tokens once the call’s output is decided, and shows on the output', () => {
    const { engine, journal } = started({ budget: { maxModelResponses: 10, maxToolCalls: 10 } }, [
      research('r1'),
    ]);
    finish(engine, journal, 'r1', ok('found', spent(3, 2, 400)));
    const view = viewOf(engine);
    // Its own response (15 tokens) and call, and the sub-agent's.
    expect(view.spent).toMatchObject({ modelResponses: 4, toolCalls: 3, tokens: 415 });
    expect(view.budgetLeft).toMatchObject({ modelResponses: 6, toolCalls: 7 });
    const completed = journal.find((e) => e.type === 'tool.completed');
    expect(completed).toMatchObject({ output: { status: 'ok', spent: spent(3, 2, 400) } });
    // The same from the journal alone: replay charges it the same way.
    expect(TurnEngine.replay(journal).view.spent).toEqual(engine.view.spent);
  });

  it('a sub-agent that ended badly (an error output) is charged too', () => {
    const { engine, journal } = started({}, [research('r1')]);
    finish(engine, journal, 'r1', failed('the sub-agent ended budget_exhausted', spent(2, 1)));
    expect(engine.view.spent).toMatchObject({ modelResponses: 3, toolCalls: 2 });
    expect(engine.view.outputs[0]?.output).toMatchObject({ status: 'error', spent: spent(2, 1) });
  });

  it('a retried attempt that attached to the same sub-agent turn is charged once: the final output’s', () => {
    const { engine, journal } = started({}, [research('r1')]);
    finish(engine, journal, 'r1', failed('flaked after it answered', spent(2), true));
    expect(engine.view.spent.modelResponses).toBe(1);
    const retry = engine.next(1_000);
    journal.push(...retry.entries);
    expect(retry.op.kind).toBe('run-tools');
    finish(engine, journal, 'r1', ok('found', spent(2)), 2);
    expect(engine.view.spent.modelResponses).toBe(3);
    expect(TurnEngine.replay(journal).view.spent.modelResponses).toBe(3);
  });

  it('a call stopped while it waits for a retry is charged what its last attempt’s sub-agents spent', () => {
    const { engine, journal } = started({}, [research('r1')]);
    finish(engine, journal, 'r1', failed('flaked after it answered', spent(2), true));
    journal.push(...engine.onCancel({ reason: 'enough' }));
    expect(engine.view.outputs[0]?.output).toMatchObject({ status: 'interrupted', spent: spent(2) });
    expect(engine.view.spent.modelResponses).toBe(3);
  });

  it('a parent whose response budget the charge used up stops instead of asking the model again', () => {
    const { engine, journal } = started({ budget: { maxModelResponses: 3 } }, [research('r1')]);
    finish(engine, journal, 'r1', ok('found', spent(2)));
    const step = engine.next(0);
    expect(step.op).toMatchObject({ kind: 'finished', outcome: { status: 'budget_exhausted' } });
    expect(step.entries.map((e) => e.type)).not.toContain('model.requested');
    expect(engine.outcome()).toMatchObject({
      modelResponses: 3,
      reason: 'model response budget of 3 used up',
    });
  });

  it('tokens a sub-agent spent past the token budget halt the turn as its call ends, before calls not yet started', () => {
    const { engine, journal } = started({ budget: { maxTokens: 100 }, dispatch: { mode: 'sequential' } }, [
      research('r1'),
      research('r2'),
    ]);
    finish(engine, journal, 'r1', ok('found', spent(1, 0, 200)));
    expect(engine.view.halt).toMatchObject({ reason: 'budget_exhausted' });
    expect(engine.view.outputs.map((o) => o.output.status)).toEqual(['ok', 'interrupted']);
  });

  it('a result without a charge (a history from before it) charges nothing', () => {
    const { engine, journal } = started({}, [research('r1')]);
    finish(engine, journal, 'r1', ok('found'));
    expect(engine.view.spent).toMatchObject({ modelResponses: 1, toolCalls: 1 });
    expect(engine.view.outputs[0]?.output).not.toHaveProperty('spent');
  });

  it('a snapshot keeps the charge and the attempt’s record of it', () => {
    const { engine, journal } = started({}, [research('r1'), research('r2')]);
    finish(engine, journal, 'r1', ok('found', spent(2, 1, 7)));
    const restored = TurnEngine.restore(JSON.parse(JSON.stringify(engine.snapshot())));
    expect(restored.view.spent).toEqual(engine.view.spent);
    expect(restored.view.outputs[0]?.output.spent).toEqual(spent(2, 1, 7));
  });
});
