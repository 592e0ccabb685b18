import type { JournalEntry, PreparedCall } from 'durable-turns';
import { call, live, messageOf, notText, resumed, type Step, said } from '../test/ui-stream/resume-steps';
import { visibleParts } from './read-ui-message';
import { encodePosition } from './ui-stream-position';

/** A small deterministic random source (a linear congruential generator), so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const words = ['ab', 'cd', 'ef ', 'g', 'hij ', 'k.', ' lm'];

/**
 * A turn made up from `seed`: one or two responses, text and reasoning looked at as they stream,
 * calls accepted mid-stream, attempts given up, responses with no text, cancels, approvals granted
 * and refused, background deliveries, steered messages.
 */
function madeUpTurn(seed: number): Step[] {
  const next = random(seed);
  const pick = <T>(from: readonly T[]) => from[Math.floor(next() * from.length)] as T;
  const steps: Step[] = [
    { entry: { type: 'turn.started', turnId: 't', input: [{ role: 'user', content: 'x' }] } },
  ];
  let calls = 0;
  const responses = 1 + Math.floor(next() * 2);
  for (let responseIndex = 0; responseIndex < responses; responseIndex++) {
    steps.push({ entry: { type: 'model.requested', responseIndex } });
    const accepted: PreparedCall[] = [];
    let text = '';
    let reasoning = '';
    const attempts = next() < 0.3 ? 2 : 1;
    for (let attempt = 0; attempt < attempts; attempt++) {
      text = '';
      reasoning = '';
      for (let look = Math.floor(next() * 5); look > 0; look--) {
        if (next() < 0.4) reasoning += pick(words);
        else text += pick(words);
        if (next() < 0.3) {
          const read = call(`c${++calls}`, 'read_file', false);
          accepted.push(read);
          steps.push({ entry: { type: 'model.call_accepted', responseIndex, call: read } });
          steps.push({
            entry: { type: 'tool.attempt_started', toolCallId: read.toolCallId, attempt: 1, at: 1 },
          });
        }
        steps.push({ look: { responseIndex, stream: `s${responseIndex}-${attempt}`, text, reasoning } });
      }
    }
    if (next() < 0.15) {
      steps.push({ entry: { type: 'turn.finished', status: 'cancelled' } });
      return steps;
    }
    if (next() < 0.8) steps.push({ entry: { type: 'model.response_ended', responseIndex, at: 2 } });
    const approval = next() < 0.4 ? call(`d${responseIndex}`, 'deploy', true) : undefined;
    const message =
      next() < 0.2 ? { role: 'assistant' as const, content: [] } : said(text + pick(['', 'z']), reasoning);
    steps.push({
      entry: {
        type: 'model.responded',
        responseIndex,
        message,
        calls: approval ? [approval] : [],
        usage: { inputTokens: 1, outputTokens: 1 },
        finishReason: approval ? 'tool-calls' : 'stop',
      },
    });
    if (approval) {
      const approved = next() < 0.5;
      const { toolCallId } = approval;
      steps.push(
        { entry: { type: 'tool.approval_requested', toolCallId, at: 3 } },
        { entry: { type: 'tool.approval_decided', toolCallId, approved, reason: 'r' } },
        {
          entry: {
            type: 'tool.completed',
            toolCallId,
            output: approved
              ? { status: 'ok', content: 'done', attempts: 1 }
              : { status: 'error', content: 'rejected', attempts: 0, errorType: 'rejected' },
          },
        },
      );
    }
    const extra: JournalEntry[] = [];
    if (next() < 0.3)
      extra.push({
        type: 'background.delivered',
        deliveries: ['a', 'b'].map((n) => ({
          toolCallId: `b${responseIndex}${n}`,
          toolName: 'bg',
          output: { status: 'ok' as const, content: n, attempts: 1 },
        })),
      });
    if (next() < 0.3)
      extra.push({
        type: 'user.steered',
        messages: ['one', 'two'].map((content) => ({
          messageId: `u${responseIndex}${content}`,
          message: { role: 'user' as const, content },
        })),
      });
    for (const read of accepted)
      extra.push({
        type: 'tool.completed',
        toolCallId: read.toolCallId,
        output: { status: 'ok', content: 'x', attempts: 1 },
      });
    steps.push(...extra.map((entry) => ({ entry })));
  }
  steps.push({ entry: { type: 'turn.finished', status: next() < 0.2 ? 'cancelled' : 'completed' } });
  return steps;
}

/** The text and reasoning a person sees, whole (a cancelled turn's live text is not in its record). */
async function textsOf(chunks: Parameters<typeof messageOf>[0], cancelled: boolean) {
  if (cancelled) return {};
  const parts = visibleParts(await messageOf(chunks));
  const of = (type: string) =>
    parts.flatMap((part) => (part.type === type && 'text' in part ? [part.text] : [])).join('');
  return { text: of('text'), reasoning: of('reasoning') };
}

/**
 * The first fifteen, and seeds that once found a bug (a restored part a gap left unstarted). Each
 * resumes after every event four ways, so the time grows with the square of a turn's length; 400
 * seeds ran clean once (`DURABLE_TURNS_RESUME_SEEDS=400` runs the first 400).
 */
const seedCount = Number(process.env.DURABLE_TURNS_RESUME_SEEDS ?? 15);
const seeds = [...Array.from({ length: seedCount }, (_, i) => i + 1), 185, 197, 248];

test('made-up turns: after any event, read live or through heartbeat tails, a resumed stream makes the same message, nothing sent twice', async () => {
  const failures: string[] = [];
  for (const seed of seeds) {
    if (failures.length >= 3) break;
    const turn = madeUpTurn(seed);
    const cancelled = turn.some(
      (step) => 'entry' in step && step.entry.type === 'turn.finished' && step.entry.status === 'cancelled',
    );
    for (const watchedTail of [undefined, 3]) {
      const stream = await live(turn, watchedTail === undefined ? {} : { tail: watchedTail });
      const all = stream.map(({ chunk }) => chunk);
      const whole = { ...(await textsOf(all, cancelled)), sent: notText(all) };
      for (const [index, { position, steps }] of stream.entries())
        for (const from of new Set([steps, turn.length]))
          for (const tail of [undefined, 3]) {
            const had = all.slice(0, index + 1);
            const what = `seed ${seed}, watched with tail ${watchedTail}, after ${encodePosition(position)} (chunk ${index}), resumed at step ${from} with tail ${tail}`;
            try {
              const rest = await resumed(turn, position, from, tail);
              const got = {
                ...(await textsOf([...had, ...rest], cancelled)),
                sent: notText([...had, ...rest]),
              };
              if (JSON.stringify(got) !== JSON.stringify(whole))
                failures.push(`${what}: ${JSON.stringify(got)} instead of ${JSON.stringify(whole)}`);
            } catch (error) {
              failures.push(`${what}: ${String(error).slice(0, 300)}`);
            }
          }
    }
  }
  expect(failures).toEqual([]);
});
