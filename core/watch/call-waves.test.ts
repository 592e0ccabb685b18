import type { JournalEntry } from '../schema/journal-entry';
import type { PreparedCall } from '../schema/prepared-call';
import { retryPolicySchema } from '../schema/retry-policy';
import { turnConfigSchema } from '../schema/turn-config';
import { zeroUsage } from '../schema/usage';
import { CallWaveReader } from './call-waves';

const call = (id: string, { safe = true, resources = [] as string[] } = {}): PreparedCall => ({
  toolCallId: id,
  toolName: safe ? 'read' : 'write',
  input: {},
  policy: {
    concurrencySafe: safe,
    resources,
    retry: retryPolicySchema.parse({}),
    retrySafe: true,
    requiresApproval: false,
  },
});

const opening = (mode: 'parallel' | 'sequential'): JournalEntry[] => [
  { type: 'turn.started', turnId: 't', input: [{ role: 'user', content: 'go' }] },
  { type: 'turn.opened', at: 0, config: turnConfigSchema.parse({ dispatch: { mode, maxConcurrency: 8 } }) },
];

const responded = (responseIndex: number, calls: PreparedCall[]): JournalEntry => ({
  type: 'model.responded',
  responseIndex,
  message: { role: 'assistant', content: [] },
  calls,
  usage: zeroUsage,
  finishReason: calls.length > 0 ? 'tool-calls' : 'stop',
});

const completed = (id: string): JournalEntry => ({
  type: 'tool.completed',
  toolCallId: id,
  output: { status: 'ok', content: id, attempts: 1 },
});

function readAll(entries: JournalEntry[]): (Record<string, number> | undefined)[] {
  const reader = new CallWaveReader();
  return entries.map((entry) => reader.take(entry));
}

describe('CallWaveReader: the wave of every call, read from the journal as the engine planned it', () => {
  test('safe calls share a wave; a conflicting resource or an unsafe call opens the next one', () => {
    const waves = readAll([
      ...opening('parallel'),
      { type: 'model.requested', responseIndex: 0 },
      responded(0, [
        call('a', { resources: ['x'] }),
        call('b'),
        call('c', { resources: ['x'] }),
        call('w', { safe: false }),
        call('d'),
      ]),
    ]);
    expect(waves.at(-1)).toEqual({ a: 0, b: 0, c: 1, w: 2, d: 3 });
  });

  test('every batch keeps its own waves, numbered from 0, not only the current one', () => {
    const waves = readAll([
      ...opening('parallel'),
      { type: 'model.requested', responseIndex: 0 },
      responded(0, [call('a'), call('w', { safe: false })]),
      completed('a'),
      completed('w'),
      { type: 'model.requested', responseIndex: 1 },
      responded(1, [call('b'), call('c')]),
    ]);
    expect(waves[3]).toEqual({ a: 0, w: 1 });
    expect(waves.at(-1)).toEqual({ b: 0, c: 0 });
  });

  test('calls accepted while the response streams get their waves then; the response adds only the rest', () => {
    const waves = readAll([
      ...opening('parallel'),
      { type: 'model.requested', responseIndex: 0 },
      { type: 'model.call_accepted', responseIndex: 0, call: call('a') },
      { type: 'model.call_accepted', responseIndex: 0, call: call('w', { safe: false }) },
      responded(0, [call('a'), call('w', { safe: false }), call('b')]),
    ]);
    expect(waves.slice(3)).toEqual([{ a: 0 }, { w: 1 }, { a: 0, w: 1, b: 2 }]);
  });

  test('in sequential mode every call is a wave of its own', () => {
    const waves = readAll([
      ...opening('sequential'),
      { type: 'model.requested', responseIndex: 0 },
      responded(0, [call('a'), call('b'), call('c')]),
    ]);
    expect(waves.at(-1)).toEqual({ a: 0, b: 1, c: 2 });
  });

  test('a watch that missed the journal start learns no waves (it cannot know the plan), and says so by returning none', () => {
    const entries = [
      ...opening('parallel'),
      { type: 'model.requested', responseIndex: 0 } as const,
      responded(0, [call('a'), call('b')]),
    ];
    expect(readAll(entries.slice(2))).toEqual([undefined, undefined]);
  });
});
