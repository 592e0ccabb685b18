import type { CallOutcome, Message, TurnResult } from 'durable-turns';
import { keyCollisions, turnViolations } from './chaos-checks';
import { retrySafeTool, unsafeTool } from './chaos-plan';
import type { LedgerLine } from './ledger';

// The chaos test is only as good as these checks: each broken promise must be caught.

const turnId = 'turn-1';

function run(e: 'begin' | 'end', callId: string, pid: number): Extract<LedgerLine, { e: typeof e }> {
  return { e, turnId, callId, key: `${turnId}/${callId}`, attempt: 1, pid };
}

const ok = (toolCallId: string, name: string, pid: number): CallOutcome => ({
  toolCallId,
  name,
  status: 'ok',
  content: { doneBy: pid },
  attempts: 1,
});

const unknown = (toolCallId: string, name: string, content: string): CallOutcome => ({
  toolCallId,
  name,
  status: 'interrupted',
  content,
  attempts: 1,
  errorType: 'outcome-unknown',
});

const notRetried =
  'unsafe_effect: outcome unknown after its host was lost; not retried because the tool is not retry-safe';

function resultOf(outputs: CallOutcome[], transcript?: Message[]): TurnResult {
  const answered: Message[] = [
    {
      role: 'assistant',
      content: outputs.map((o) => ({
        type: 'tool-call',
        toolCallId: o.toolCallId,
        toolName: o.name,
        input: {},
      })),
    },
    {
      role: 'tool',
      content: outputs.map(({ toolCallId, name, ...output }) => ({
        type: 'tool-result',
        toolCallId,
        toolName: name,
        output,
      })),
    },
    { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
  ];
  return {
    turnId,
    status: 'completed',
    outputs,
    transcript: transcript ?? answered,
    text: 'done',
    usage: { inputTokens: 0, outputTokens: 0 },
    modelResponses: 2,
    toolCalls: outputs.length,
    events: [],
  };
}

const violations = (outputs: CallOutcome[], lines: LedgerLine[]) =>
  turnViolations({ result: resultOf(outputs), lines }).violations;

describe('chaos checks', () => {
  test('a run whose outputs match the ledger passes, a rerun after its worker died with the result included', () => {
    const lines: LedgerLine[] = [
      run('begin', 'a', 1),
      run('begin', 'b', 1),
      run('end', 'a', 1),
      { e: 'kill', pid: 1 },
      run('begin', 'a', 2),
      run('end', 'a', 2),
    ];
    const checked = turnViolations({
      result: resultOf([ok('a', retrySafeTool, 2), unknown('b', unsafeTool, notRetried)]),
      lines,
    });
    expect(checked.violations).toEqual([]);
    expect(checked.figures).toEqual({
      calls: 2,
      reruns: 1,
      interrupted: 1,
      finishedButLost: 1,
      partialResponses: 0,
    });
  });

  test('a finished call that began again while its worker lived is caught', () => {
    const lines = [run('begin', 'a', 1), run('end', 'a', 1), run('begin', 'a', 2), run('end', 'a', 2)];
    expect(violations([ok('a', retrySafeTool, 2)], lines)).toEqual([
      expect.stringContaining('began again after it finished on a worker that was not lost'),
    ]);
  });

  test('a call that is not retry-safe and began twice is caught', () => {
    const lines: LedgerLine[] = [
      run('begin', 'a', 1),
      { e: 'kill', pid: 1 },
      run('begin', 'a', 2),
      run('end', 'a', 2),
    ];
    expect(violations([ok('a', unsafeTool, 2)], lines)).toEqual([
      expect.stringContaining('not retry-safe, yet began twice'),
    ]);
  });

  test('an interrupted output for a call that finished on a live worker is caught', () => {
    const lines = [run('begin', 'a', 1), run('end', 'a', 1)];
    expect(violations([unknown('a', unsafeTool, notRetried)], lines)).toEqual([
      expect.stringContaining('interrupted, but it finished on a worker that was never killed'),
    ]);
  });

  test('an interrupted output that does not say the outcome is unknown is caught', () => {
    const lines: LedgerLine[] = [run('begin', 'a', 1), { e: 'kill', pid: 1 }];
    const cancelled = { ...unknown('a', unsafeTool, 'interrupted: cancelled'), errorType: 'cancelled' };
    expect(violations([cancelled], lines)).toEqual([
      expect.stringContaining('does not say its outcome is unknown'),
      expect.stringContaining('its text does not say the outcome is unknown'),
    ]);
  });

  test('a retry-safe call interrupted instead of run again is caught', () => {
    const lines: LedgerLine[] = [run('begin', 'a', 1), { e: 'kill', pid: 1 }];
    const text =
      'safe_effect: outcome unknown after its host was lost; not retried because the tool is not retry-safe';
    expect(violations([unknown('a', retrySafeTool, text)], lines)).toEqual([
      expect.stringContaining('retry-safe, yet interrupted instead of run again'),
    ]);
  });

  test('an ok output that is not the result of the execution that finished is caught', () => {
    const lines = [run('begin', 'a', 1), run('end', 'a', 1)];
    expect(violations([ok('a', retrySafeTool, 7)], lines)).toEqual([
      expect.stringContaining('not the result of its last finished execution'),
    ]);
    expect(violations([ok('b', retrySafeTool, 1)], [])).toEqual([
      expect.stringContaining('ok, but no execution finished'),
    ]);
  });

  test('a call that ran without an output, and an invalid transcript, are caught', () => {
    const result = resultOf(
      [],
      [
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: 'a', toolName: unsafeTool, input: {} }],
        },
      ],
    );
    expect(turnViolations({ result, lines: [run('begin', 'a', 1)] }).violations).toEqual([
      expect.stringContaining('invalid transcript'),
      expect.stringContaining('call a ran but has no output'),
    ]);
  });

  test('a transcript that tells the model something other than the outputs is caught', () => {
    const result = resultOf([ok('a', retrySafeTool, 1)]);
    result.outputs = [ok('a', retrySafeTool, 2)];
    const lines = [run('begin', 'a', 2), run('end', 'a', 2)];
    expect(turnViolations({ result, lines }).violations).toEqual([
      expect.stringContaining('call a: the transcript says'),
    ]);
  });

  test('executions under different keys are caught', () => {
    const lines = [run('begin', 'a', 1), { ...run('end', 'a', 1), key: 'other' }];
    expect(violations([ok('a', retrySafeTool, 1)], lines)).toEqual([
      expect.stringContaining('ran under different keys'),
    ]);
  });

  test('two calls sharing an idempotency key are caught, across turns too', () => {
    const other = { ...run('begin', 'a', 1), turnId: 'turn-2' };
    expect(keyCollisions([run('begin', 'a', 1), run('begin', 'b', 1)])).toEqual([]);
    expect(keyCollisions([run('begin', 'a', 1), other])).toEqual([
      `key ${turnId}/a is shared by turn-1 a, turn-2 a`,
    ]);
  });
});
