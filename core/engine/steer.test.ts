import { z } from 'zod';
import { isTranscriptEvent, type JournalEntry, type TranscriptEvent } from '../schema/journal-entry';
import { defineTool } from '../tools/define-tool';
import { stableHash } from '../tools/stable-hash';
import { ToolRegistry } from '../tools/tool-registry';
import { respond as respondWith } from './fixtures/respond';
import { messagesFromEvents } from './messages-from-events';
import { TurnEngine } from './turn-engine';

const registry = new ToolRegistry([
  defineTool({ name: 'slow', description: 'Slow', input: z.object({}), execute: () => 'done' }),
]);

/** A turn whose first response asked for `slow` (call `a`), which is running. */
function turnRunningACall() {
  const { engine, entries } = TurnEngine.start({ turnId: 't', input: 'go', config: {}, now: 0 });
  const journal: JournalEntry[] = [...entries, ...engine.next(0).entries];
  journal.push(...respond(engine, 0, ['a']));
  const step = engine.next(1);
  journal.push(...step.entries);
  expect(step.op.kind).toBe('run-tools');
  return { engine, journal };
}

const respond = (engine: TurnEngine, responseIndex: number, callIds: string[], text = '') =>
  respondWith(
    { engine, registry },
    responseIndex,
    callIds.map((id) => ({ id, name: 'slow', args: {} })),
    text,
  );

const done = (engine: TurnEngine, toolCallId: string) =>
  engine.onToolAttemptFinished({
    toolCallId,
    attempt: 1,
    result: { status: 'ok', content: 'done', resultHash: stableHash('done') },
    durationMs: 1,
    now: 2,
  });

const steer = (messageId: string) => ({ messageId, message: { role: 'user' as const, content: messageId } });
const types = (entries: readonly JournalEntry[]) => entries.map((e) => e.type);

describe('a steer: a message a user sends into the running turn', () => {
  test('waits for the running call, whose output stands, and joins before the next request, several in order', () => {
    const { engine, journal } = turnRunningACall();
    expect(engine.onSteer(steer('hint 1'))).toEqual([]);
    expect(engine.onSteer(steer('hint 2'))).toEqual([]);
    const entries = done(engine, 'a');
    expect(types(entries)).toEqual(['tool.attempt_finished', 'tool.completed', 'user.steered']);
    journal.push(...entries);
    const next = engine.next(3);
    expect(next.op.kind).toBe('call-model');
    expect(engine.view.messages.slice(-3).map((m) => m.role)).toEqual(['tool', 'user', 'user']);
    expect(engine.view.messages.slice(-2)).toEqual([steer('hint 1').message, steer('hint 2').message]);
    // The transcript events say the same on any host, and a repeated message id is taken once.
    expect(engine.onSteer(steer('hint 1'))).toEqual([]);
    expect(engine.view.pendingSteers).toEqual([]);
    const events = journal.filter(isTranscriptEvent) as TranscriptEvent[];
    expect(messagesFromEvents(events)).toEqual(engine.view.messages);
  });

  test('one that arrives while the model streams waits for that response and its outputs', () => {
    const { engine } = TurnEngine.start({ turnId: 't', input: 'go', config: {}, now: 0 });
    engine.next(0);
    expect(engine.onSteer(steer('hint'))).toEqual([]);
    expect(types(respond(engine, 0, ['a']))).not.toContain('user.steered');
    engine.next(1);
    expect(types(done(engine, 'a'))).toContain('user.steered');
  });

  test('once the model has answered without calls it is not taken: the turn ends without it', () => {
    const { engine } = TurnEngine.start({ turnId: 't', input: 'go', config: {}, now: 0 });
    engine.next(0);
    expect(types(respond(engine, 0, [], 'the answer'))).toContain('turn.finished');
    expect(engine.onSteer(steer('too late'))).toEqual([]);
    expect(engine.view.messages.some((m) => m.role === 'user' && m.content === 'too late')).toBe(false);
  });

  test('a cancelled turn takes none', () => {
    const { engine } = turnRunningACall();
    engine.onCancel();
    expect(engine.onSteer(steer('after the cancel'))).toEqual([]);
  });
});
