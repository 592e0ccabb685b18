import { feedHostEvent, type HostEvent, type PreparedCall, TurnEngine } from '../../core';
import { modelSummary } from './model-summary';
import { toolSummary } from './tool-summary';
import { TurnDetails } from './turn-details';
import { waitSummary } from './wait-summary';

const call = (toolCallId: string, extra: Partial<PreparedCall['policy']> = {}): PreparedCall => ({
  toolCallId,
  toolName: 'read_file',
  input: { path: `notes/${toolCallId}.md` },
  policy: {
    concurrencySafe: true,
    resources: [],
    retry: {
      maxAttempts: 2,
      initialDelayMs: 100,
      backoffCoefficient: 2,
      maxDelayMs: 1000,
      nonRetryableErrorTypes: [],
    },
    retrySafe: true,
    requiresApproval: false,
    ...extra,
  },
});
const ok = { status: 'ok', content: 'fine', resultHash: 'h' } as const;
const failed = {
  status: 'error',
  content: 'boom',
  errorType: 'Error',
  retryable: true,
  resultHash: 'h',
} as const;

/** A real engine, driven as a host drives it, so the views read the state the workflow reads. */
function turnWith(calls: PreparedCall[], approvalTimeoutMs?: number) {
  const { engine } = TurnEngine.start({
    turnId: 't',
    input: 'read my notes',
    config: approvalTimeoutMs ? { approvals: { timeoutMs: approvalTimeoutMs } } : {},
    now: 0,
  });
  const feed = (event: HostEvent, now: number) => feedHostEvent(engine, event, now);
  engine.next(0);
  feed(
    {
      kind: 'model-responded',
      response: {
        responseIndex: 0,
        message: { role: 'assistant', content: [] },
        calls,
        usage: { inputTokens: 7, outputTokens: 3 },
        finishReason: 'tool-calls',
      },
    },
    10,
  );
  return { engine, feed };
}

describe('what the Web UI shows for a turn', () => {
  test('a tool attempt names the tool, the call, a retry’s attempt and the start of the arguments', () => {
    expect(toolSummary({ call: call('read_mon'), attempt: 1 })).toBe(
      'read_file read_mon {"path":"notes/read_mon.md"}',
    );
    expect(toolSummary({ call: call('read_mon'), attempt: 2 })).toBe(
      'read_file read_mon (attempt 2) {"path":"notes/read_mon.md"}',
    );
    const long = toolSummary({
      call: { ...call('x'.repeat(500)), input: { text: 'y'.repeat(1 << 20) } },
      attempt: 1,
    });
    expect(long.length).toBeLessThan(200);
  });

  test('a model request names its index, the model and a retry’s attempt', () => {
    expect(modelSummary({ responseIndex: 3, model: 'gpt-4.1' })).toBe('response 4 gpt-4.1');
    expect(modelSummary({ responseIndex: 3, model: 'gpt-4.1', attempt: 2 })).toBe(
      'response 4 gpt-4.1 (attempt 2)',
    );
  });

  test('a retry timer names the calls whose backoff ends then, the first and how many more', () => {
    const { engine, feed } = turnWith([call('a'), call('b'), call('c')]);
    const step = engine.next(20);
    expect(step.op.kind).toBe('run-tools');
    for (const id of ['a', 'b'])
      feed({ kind: 'attempt-finished', toolCallId: id, attempt: 1, result: failed, durationMs: 1 }, 30);
    const wait = engine.next(30).op;
    if (wait.kind !== 'wait' || wait.untilMs === undefined)
      throw new Error(`expected a timed wait, got ${wait.kind}`);
    expect(waitSummary({ untilMs: wait.untilMs, view: engine.view, model: 'm' })).toBe(
      'retry backoff: read_file a (attempt 2) and 1 more',
    );
    const details = new TurnDetails(engine, 'm').render({ phase: 'waiting' });
    expect(details).toContain('- calls: 1 running · 2 retry wait');
    expect(details).toContain('- responses: 1');
    expect(details).toContain('- tokens: 7 in · 3 out');
  });

  test('an approval timer names the call that waits for a person', () => {
    const { engine } = turnWith([call('d1', { requiresApproval: true, concurrencySafe: false })], 5_000);
    const wait = engine.next(20).op;
    if (wait.kind !== 'wait' || wait.untilMs === undefined)
      throw new Error(`expected a timed wait, got ${wait.kind}`);
    expect(waitSummary({ untilMs: wait.untilMs, view: engine.view, model: 'm' })).toBe(
      'approval timeout: read_file d1',
    );
    expect(new TurnDetails(engine, 'm').render({ phase: 'x' })).toContain('- calls: 1 awaiting approval');
  });

  test('the details count each recorded output once, however often they are rendered', () => {
    const { engine, feed } = turnWith([call('a'), call('b')]);
    engine.next(20);
    const details = new TurnDetails(engine, 'gpt-4.1');
    feed({ kind: 'attempt-finished', toolCallId: 'a', attempt: 1, result: ok, durationMs: 1 }, 30);
    expect(details.render({ phase: 'tools running' })).toContain('- calls: 1 ok · 1 running');
    feed({ kind: 'attempt-finished', toolCallId: 'b', attempt: 1, result: ok, durationMs: 1 }, 40);
    engine.next(40);
    details.render({ phase: 'x' });
    const text = details.render({ phase: 'model #1 gpt-4.1 streaming' });
    expect(text).toContain('**gpt-4.1** · running · model #1 gpt-4.1 streaming');
    expect(text).toContain('- calls: 2 ok\n');
  });
});
