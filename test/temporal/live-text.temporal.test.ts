import { temporal } from '@temporalio/proto';
import { defineTool, type ScriptedPart, scriptedModel } from 'durable-turns';
import type { TurnClient, TurnWatchEvent } from 'durable-turns/client';
import { z } from 'zod';
import { sleep, uniqueTurnId } from '../conformance/support';
import type { HistoryEvent } from '../support/history-events';
import { TemporalKit } from './support/kit';

const kit = new TemporalKit();
const eventBytes = (event: HistoryEvent) => temporal.api.history.v1.HistoryEvent.encode(event).finish();
beforeAll(() => kit.open());
afterAll(() => kit.close());

const slow = defineTool({
  name: 'slow',
  description: 'Takes a while',
  input: z.object({ ms: z.number() }),
  concurrencySafe: true,
  execute: async ({ ms }) => {
    await sleep(ms);
    return 'done';
  },
});

/** `count` text deltas, one every `everyMs`, each naming its number (so order is checkable). */
function textParts({
  count,
  everyMs,
  label,
}: {
  count: number;
  everyMs: number;
  label: string;
}): ScriptedPart[] {
  return Array.from({ length: count }, (_, i) => ({
    type: 'text-delta' as const,
    delta: `${label}${String(i).padStart(3, '0')} `,
    delayMs: everyMs,
  }));
}
const joined = (parts: ScriptedPart[]) => parts.map((p) => (p.type === 'text-delta' ? p.delta : '')).join('');
const finish = (reason: string): ScriptedPart => ({
  type: 'finish',
  finishReason: reason,
  usage: { inputTokens: 1, outputTokens: 1 },
});

interface Seen {
  event: TurnWatchEvent;
  at: number;
}

async function watchAll(client: TurnClient, turnId: string, intervalMs = 50): Promise<Seen[]> {
  const seen: Seen[] = [];
  for await (const event of client.watch(turnId, { intervalMs })) seen.push({ event, at: Date.now() });
  return seen;
}

/**
 * Per response, what a consumer shows of its text, from the events alone: it throws on a delta
 * that does not continue exactly where the text stands (out of order, repeated) and on one that
 * comes outside its response's `model.requested` … `model.responded`.
 */
function responsesShown(seen: readonly Seen[]): Map<number, string> {
  const shown = new Map<number, string>();
  const open = new Set<number>();
  for (const { event } of seen) {
    if (event.kind === 'entry') {
      if (event.entry.type === 'model.requested') open.add(event.entry.responseIndex);
      if (event.entry.type === 'model.responded') open.delete(event.entry.responseIndex);
      continue;
    }
    if (event.kind === 'sub-agent-approvals') continue;
    if (!open.has(event.responseIndex))
      throw new Error(`${event.kind} of response ${event.responseIndex} out of place`);
    if (event.kind === 'restart') shown.set(event.responseIndex, '');
    if (event.kind !== 'delta' || event.channel !== 'text') continue;
    const text = shown.get(event.responseIndex) ?? '';
    if (event.offset !== text.length)
      throw new Error(`delta at ${event.offset}, text is ${text.length} long`);
    shown.set(event.responseIndex, text + event.delta);
  }
  return shown;
}

const respondedAt = (seen: readonly Seen[], responseIndex: number) =>
  seen.findIndex(
    ({ event }) =>
      event.kind === 'entry' &&
      event.entry.type === 'model.responded' &&
      event.entry.responseIndex === responseIndex,
  );

describe('live text while the model streams', () => {
  test('a watcher sees the text in order, before the response is recorded, adding up to the recorded text; history gains nothing', async () => {
    const taskQueue = kit.taskQueue('live-text');
    const stream = textParts({ count: 60, everyMs: 50, label: 'w' });
    const model = scriptedModel([{ parts: [...stream, finish('stop')] }]);
    const worker = await kit.worker({ taskQueue, tools: [], model });
    await worker.runUntil(async () => {
      const client = kit.client(taskQueue);
      const turnId = uniqueTurnId('live-text');
      const turn = await client.start({ turnId, input: 'go', model: 'scripted' });
      const seen = await watchAll(client, turnId);
      const result = await turn.result();
      expect(result.text).toBe(joined(stream));
      expect(responsesShown(seen).get(0)).toBe(result.text);
      // Seen live: several deltas, over several looks, came before the response's entry (the last
      // delta before it may be the completion from the recorded text).
      const live = seen.slice(0, respondedAt(seen, 0)).filter(({ event }) => event.kind === 'delta');
      expect(live.length).toBeGreaterThanOrEqual(3);
      expect(new Set(live.map((s) => s.at)).size).toBeGreaterThanOrEqual(2);
      // Live text is no history: the streamed text is in it where it always was — the model
      // activity's result and the workflow's — and in no other event.
      const history = await client.client.workflow.getHandle(turnId).fetchHistory();
      const EventType = temporal.api.enums.v1.EventType;
      const holding = (history.events ?? [])
        .filter((e) => Buffer.from(eventBytes(e)).toString('latin1').includes('w030 '))
        .map((e) => e.eventType);
      expect(holding).toEqual([
        EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED,
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
      ]);
    });
  });

  test('a dozen watchers do not stall the hand-over of a call while the stream is open', async () => {
    const taskQueue = kit.taskQueue('live-text-many');
    const before = textParts({ count: 10, everyMs: 40, label: 'a' });
    const after = textParts({ count: 40, everyMs: 50, label: 'b' });
    const model = scriptedModel([
      {
        parts: [
          ...before,
          { type: 'tool-call', toolCallId: 'c1', toolName: 'slow', input: '{"ms":200}' },
          ...after,
          finish('tool-calls'),
        ],
      },
      { text: 'done' },
    ]);
    const worker = await kit.worker({ taskQueue, tools: [slow], model });
    await worker.runUntil(async () => {
      const client = kit.client(taskQueue);
      const turnId = uniqueTurnId('live-text-many');
      const turn = await client.start({ turnId, input: 'go', model: 'scripted' });
      // More watchers than a workflow has update slots (10): they must take none.
      const watchers = await Promise.all(Array.from({ length: 12 }, () => watchAll(client, turnId, 100)));
      const result = await turn.result();
      expect(result.status).toBe('completed');
      const text = joined([...before, ...after]);
      for (const seen of watchers) {
        expect(responsesShown(seen).get(0)).toBe(text);
        // The call was handed over and started while the stream was still open.
        const types = seen.flatMap(({ event }) => (event.kind === 'entry' ? [event.entry.type] : []));
        expect(types.indexOf('tool.attempt_started')).toBeGreaterThan(-1);
        expect(types.indexOf('tool.attempt_started')).toBeLessThan(types.indexOf('model.responded'));
        // Nor do they crowd out the model request's own transcript query (it would fail and be asked again).
        expect(types).not.toContain('model.attempt_failed');
      }
    });
  });

  test('a watcher that joins mid-stream gets earlier responses whole and the current one consistently', async () => {
    const taskQueue = kit.taskQueue('live-text-late');
    const first = textParts({ count: 5, everyMs: 10, label: 'f' });
    const second = textParts({ count: 50, everyMs: 50, label: 's' });
    const model = scriptedModel([
      {
        parts: [
          ...first,
          { type: 'tool-call', toolCallId: 'c1', toolName: 'slow', input: '{"ms":10}' },
          finish('tool-calls'),
        ],
      },
      { parts: [...second, finish('stop')] },
    ]);
    const worker = await kit.worker({ taskQueue, tools: [slow], model });
    await worker.runUntil(async () => {
      const client = kit.client(taskQueue);
      const turnId = uniqueTurnId('live-text-late');
      const turn = await client.start({ turnId, input: 'go', model: 'scripted' });
      // Join once the second response is streaming (its text has begun).
      const handle = client.attach(turnId);
      for (;;) {
        const state = await handle.state();
        if (state.responseIndex >= 1 && state.phase !== 'finished') break;
        await sleep(20);
      }
      await sleep(500);
      const seen = await watchAll(client, turnId);
      await turn.result();
      const shown = responsesShown(seen);
      expect(shown.get(0)).toBe(joined(first));
      expect(shown.get(1)).toBe(joined(second));
      // Response 0 came whole, as one delta, just before its entry.
      const index = respondedAt(seen, 0);
      expect(seen[index - 1]?.event).toEqual({
        kind: 'delta',
        responseIndex: 0,
        channel: 'text',
        offset: 0,
        delta: joined(first),
      });
    });
  });

  test('a request asked again after its stream broke starts over: the watcher is told, and ends with the new text', async () => {
    const taskQueue = kit.taskQueue('live-text-retry');
    const broken = textParts({ count: 30, everyMs: 50, label: 'x' });
    const fresh = textParts({ count: 30, everyMs: 50, label: 'y' });
    let asked = 0;
    const model = scriptedModel([
      () => {
        asked += 1;
        return asked === 1
          ? { parts: [...broken, { type: 'error', message: 'connection reset', retryable: true }] }
          : { parts: [...fresh, finish('stop')] };
      },
    ]);
    const worker = await kit.worker({ taskQueue, tools: [], model });
    await worker.runUntil(async () => {
      const client = kit.client(taskQueue);
      const turnId = uniqueTurnId('live-text-retry');
      const turn = await client.start({ turnId, input: 'go', model: 'scripted' });
      const seen = await watchAll(client, turnId);
      const result = await turn.result();
      expect(asked).toBe(2);
      expect(result.text).toBe(joined(fresh));
      expect(responsesShown(seen).get(0)).toBe(result.text);
      // The broken attempt's text was shown live, then taken back before the response's entry.
      const kinds = seen.slice(0, respondedAt(seen, 0)).map(({ event }) => event.kind);
      const restart = kinds.indexOf('restart');
      expect(restart).toBeGreaterThan(kinds.indexOf('delta'));
      expect(kinds.lastIndexOf('delta')).toBeGreaterThan(restart);
    });
  });
});
