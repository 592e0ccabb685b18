import type { JournalEntry } from '../schema/journal-entry';
import type { TurnConfigInput } from '../schema/turn-config';
import { TurnEngine } from './turn-engine';
import { turnStateView } from './turn-state-view';

const call = (id: string) => ({
  toolCallId: id,
  toolName: 'read',
  input: {},
  policy: {
    concurrencySafe: true,
    resources: [],
    retry: {
      maxAttempts: 1,
      initialDelayMs: 1,
      backoffCoefficient: 2,
      maxDelayMs: 1,
      nonRetryableErrorTypes: [],
    },
    retrySafe: true,
    requiresApproval: false,
  },
});

function respond(engine: TurnEngine, responseId: string | undefined, calls: string[], partial = false) {
  return engine.onModelResponded({
    responseIndex: engine.view.responseIndex,
    message: { role: 'assistant', content: [], ...(partial ? { partial: { reason: 'broke' } } : {}) },
    calls: calls.map(call),
    usage: { inputTokens: 1, outputTokens: 1 },
    finishReason: calls.length ? 'tool-calls' : 'stop',
    ...(responseId ? { responseId } : {}),
  });
}

/** A turn at its second request: response 0 (id resp_0) asked for one call, which finished. */
function atSecondRequest(config: TurnConfigInput) {
  const { engine, entries } = TurnEngine.start({ turnId: 't', input: 'go', config, now: 0 });
  const journal: JournalEntry[] = [...entries];
  const keep = (e: JournalEntry[]) => journal.push(...e);
  keep(engine.next(0).entries);
  keep(respond(engine, 'resp_0', ['a']));
  keep(engine.next(1).entries);
  keep(
    engine.onToolAttemptFinished({
      toolCallId: 'a',
      attempt: 1,
      result: { status: 'ok', content: 'A', resultHash: 'h' },
      durationMs: 1,
      now: 2,
    }),
  );
  const step = engine.next(3);
  keep(step.entries);
  return { engine, journal, step };
}

describe('receipts', () => {
  it('records the provider id with its response, and a stateful turn continues from it: the intent names it, the request carries what came after', () => {
    const { engine, step } = atSecondRequest({ continuation: 'since-receipt' });
    expect(step.entries).toEqual([{ type: 'model.requested', responseIndex: 1, continuesFrom: 'resp_0' }]);
    expect(step.op).toMatchObject({
      kind: 'call-model',
      continuation: { previousResponseId: 'resp_0', fromMessage: 2 },
    });
    // What comes after the receipt's response: the tool message with the call's output.
    const op = step.op.kind === 'call-model' ? step.op : undefined;
    expect(op?.messages.slice(op.continuation?.fromMessage).map((m) => m.role)).toEqual(['tool']);
    expect(turnStateView(engine.view, 3).receipt).toEqual({ responseIndex: 0, responseId: 'resp_0' });
  });

  it('a turn that sends its whole transcript records receipts but continues from none', () => {
    const { step } = atSecondRequest({});
    expect(step.entries).toEqual([{ type: 'model.requested', responseIndex: 1 }]);
    expect(step.op.kind === 'call-model' && step.op.continuation).toBeUndefined();
  });

  it('after a crash with the request in flight, the turn asks again from the same receipt and records no second intent', () => {
    const { journal } = atSecondRequest({ continuation: 'since-receipt' });
    const resumed = TurnEngine.replay(journal);
    resumed.onResume();
    const again = resumed.next(10);
    expect(again.entries).toEqual([]);
    expect(again.op).toMatchObject({
      kind: 'call-model',
      responseIndex: 1,
      continuation: { previousResponseId: 'resp_0' },
    });
  });

  it('a response cut short leaves no receipt: the next request continues from the last whole one', () => {
    const { engine } = atSecondRequest({ continuation: 'since-receipt' });
    respond(engine, 'resp_broken', ['b'], true);
    expect(engine.view.receipt?.responseId).toBe('resp_0');
  });
});
