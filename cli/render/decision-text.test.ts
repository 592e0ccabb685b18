import type { JournalEntry } from 'durable-turns';
import pc from 'picocolors';
import { decisionFromOutput, decisionOf, decisionText } from './decision-text';
import { progressLines } from './progress-lines';
import { transcriptLines } from './transcript-lines';
import { applyTurnEvent, emptyTurnDisplay } from './turn-display';

type Decided = Extract<JournalEntry, { type: 'tool.approval_decided' }>;
const decided = (fields: Partial<Decided>): Decided => ({
  type: 'tool.approval_decided',
  toolCallId: 'c1',
  approved: true,
  ...fields,
});
const said = (fields: Partial<Decided>) => decisionText({ decision: decisionOf(decided(fields)) });
const saidBriefly = (fields: Partial<Decided>) =>
  decisionText({ decision: decisionOf(decided(fields)), brief: true });

describe('a decision as the CLI says it', () => {
  test('names who decided and what: edited arguments, the answer given in place of the tool, the reason', () => {
    expect(said({ by: 'alice', via: 'cli', input: { path: '/tmp/x' } })).toBe(
      'approved by alice (arguments edited: {"path":"/tmp/x"})',
    );
    expect(said({ approved: false, by: 'carol', reason: 'not on a Friday' })).toBe(
      'rejected by carol: not on a Friday',
    );
    expect(said({ approved: false, decision: 'respond', output: 'saved by hand', by: 'bob' })).toBe(
      'answered by bob: "saved by hand"',
    );
    expect(said({ approved: false, expired: true, reason: 'nobody decided within 1h' })).toBe(
      'approval expired: nobody decided within 1h',
    );
  });

  test('without a name it reads as before approvers were named', () => {
    expect(said({ reason: 'ok by me' })).toBe('approved: ok by me');
    expect(said({ approved: false })).toBe('rejected');
  });

  test("cuts a long answer or argument list to one line; a live frame's state gives who and what only", () => {
    const answer = said({ approved: false, decision: 'respond', output: `line one\n${'x'.repeat(200)}` });
    expect(answer).toMatch(/^answered: "line one ⏎ x+…"$/);
    expect(answer.length).toBeLessThan(100);
    expect(saidBriefly({ by: 'alice', input: { path: '/tmp/x' }, reason: 'why' })).toBe(
      'approved by alice, arguments edited',
    );
    expect(saidBriefly({ approved: false, decision: 'respond', output: 'saved', by: 'bob' })).toBe(
      'answered by bob',
    );
  });

  test("a finished turn's transcript says which arguments ran, or that an approver answered in the tool's place", () => {
    expect(
      decisionFromOutput({
        status: 'ok',
        content: 'x',
        attempts: 1,
        ranWith: { input: { n: 2 }, by: 'alice' },
      }),
    ).toEqual({ approved: true, input: { n: 2 }, by: 'alice', fromOutput: true });
    const lines = transcriptLines({
      colors: pc.createColors(false),
      transcript: [
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'd1',
              toolName: 'deploy',
              output: {
                status: 'ok',
                content: 'deployed staging',
                attempts: 1,
                ranWith: { input: { target: 'staging' }, by: 'alice' },
              },
            },
            {
              type: 'tool-result',
              toolCallId: 'd2',
              toolName: 'deploy',
              output: { status: 'ok', content: 'saved by hand', attempts: 0, answeredBy: 'bob' },
            },
          ],
        },
      ],
    });
    expect(lines).toEqual([
      'tool deploy #d1 ok:',
      '    deployed staging',
      '    [approved by alice (arguments edited: {"target":"staging"})]',
      'tool deploy #d2 ok:',
      '    saved by hand',
      "    [answered by bob in the tool's place; the tool did not run]",
    ]);
  });

  test("watching a finished turn (its result keeps outputs, not decisions), a call's line says who decided from its output", () => {
    const display = emptyTurnDisplay({ turnId: 't1', transcriptOnly: true });
    const call = { toolCallId: 'd1', toolName: 'deploy', input: { target: 'prod' }, policy: {} };
    const entries = [
      {
        type: 'model.responded',
        responseIndex: 0,
        message: { role: 'assistant', content: [{ type: 'text', text: 'Deploying.' }] },
        calls: [call],
        usage: { inputTokens: 1, outputTokens: 1 },
        finishReason: 'tool-calls',
      },
      {
        type: 'tool.completed',
        toolCallId: 'd1',
        output: {
          status: 'ok',
          content: 'deployed',
          attempts: 1,
          ranWith: { input: { target: 'qa' }, by: 'alice' },
        },
      },
    ] as JournalEntry[];
    const lines = entries.flatMap((entry, i) => {
      const event = { kind: 'entry' as const, seq: i + 1, entry };
      applyTurnEvent({ display, event });
      return progressLines({
        display,
        event,
        colors: pc.createColors(false),
        context: { prefix: 'durable-turns' },
      });
    });
    expect(lines.at(-1)).toBe(
      '  deploy #d1 ok (1 attempt) — approved by alice (arguments edited: {"target":"qa"})',
    );
  });
});
