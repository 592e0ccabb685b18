import {
  defineTool,
  type ModelStreamPart,
  type ProgressEntry,
  scriptedModel,
  type TranscriptEvent,
  type TurnModel,
  transcriptProblems,
} from 'durable-turns';
import { z } from 'zod';
import type { ConformanceHarness, RunningTurn } from './harness';
import { sleep, uniqueTurnId } from './support';

/** A promise opened from outside. */
class Gate {
  open: () => void = () => {};
  readonly opened = new Promise<void>((resolve) => {
    this.open = resolve;
  });
}

/**
 * `build` runs in the background until the test releases its call (or it is aborted), heartbeating
 * meanwhile so a host can tell it to stop; `read` answers at once, or when its call is released if
 * the test holds it. What each call did is noted.
 */
function backgroundKit({ held = [] }: { held?: string[] } = {}) {
  const gateOf = (gates: Map<string, Gate>) => (id: string) => {
    let g = gates.get(id);
    if (!g) {
      g = new Gate();
      gates.set(id, g);
    }
    return g;
  };
  const gate = gateOf(new Map());
  const returnOf = gateOf(new Map());
  const aborted: string[] = [];
  const waitFor = async (id: string, ctx: { signal: AbortSignal; heartbeat(): void }) => {
    let released = false;
    void gate(id).opened.then(() => {
      released = true;
    });
    while (!released) {
      if (ctx.signal.aborted) {
        aborted.push(id);
        throw new Error(`${id} aborted`);
      }
      ctx.heartbeat();
      await sleep(25);
    }
  };
  const build = defineTool({
    name: 'build',
    description: 'Builds a target; takes as long as it takes',
    input: z.object({ target: z.string() }),
    concurrencySafe: true,
    resources: ({ target }) => [`workspace:${target}`],
    background: true,
    timeoutMs: 120_000,
    execute: async ({ target }, ctx) => {
      try {
        await waitFor(ctx.toolCallId, ctx);
        return `built ${target}`;
      } finally {
        returnOf(ctx.toolCallId).open();
      }
    },
  });
  const read = defineTool({
    name: 'read',
    description: 'Reads a file',
    input: z.object({ path: z.string() }),
    concurrencySafe: true,
    execute: async ({ path }, ctx) => {
      if (held.includes(ctx.toolCallId)) await waitFor(ctx.toolCallId, ctx);
      return `contents of ${path}`;
    },
  });
  return {
    tools: [build, read],
    release: (id: string) => gate(id).open(),
    /** Resolves once the call's execute has returned (or thrown). */
    returned: (id: string) => returnOf(id).opened,
    aborted,
  };
}

/** Follows a turn's journal entries as its executor's watch gives them; `seen` resolves once one matches. */
function follow(turn: RunningTurn) {
  const entries: ProgressEntry['entry'][] = [];
  const waiters: { match: (e: ProgressEntry['entry']) => boolean; resolve: () => void }[] = [];
  void (async () => {
    for await (const event of turn.watch({ live: false })) {
      if (event.kind !== 'entry') continue;
      entries.push(event.entry);
      for (const w of [...waiters]) if (w.match(event.entry)) w.resolve();
    }
  })().catch(() => {});
  return {
    seen(match: (e: ProgressEntry['entry']) => boolean): Promise<void> {
      if (entries.some(match)) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
  };
}

const finished = (id: string) => (e: ProgressEntry['entry']) =>
  e.type === 'tool.attempt_finished' && e.toolCallId === id;

/** The model, its response `index` held before its finish part until `hold` resolves. */
function heldBeforeFinish(model: TurnModel, index: number, hold: () => Promise<void>): TurnModel {
  return {
    name: model.name,
    async *stream(request) {
      for await (const part of model.stream(request)) {
        if (request.responseIndex === index && part.type === 'finish') await hold();
        yield part as ModelStreamPart;
      }
    },
  };
}

/** The transcript events in a form two executors must agree on exactly. */
function shape(events: readonly TranscriptEvent[]): string[] {
  return events.map((e) => {
    switch (e.type) {
      case 'model.requested':
        return `requested ${e.responseIndex}`;
      case 'model.responded':
        return `responded ${e.responseIndex} [${e.calls.map((c) => c.toolCallId).join(',')}]`;
      case 'tool.completed':
        return `result ${e.toolCallId}: ${e.output.status} ${String(e.output.content)}`;
      case 'background.delivered':
        return `delivered ${e.deliveries.map((d) => `${d.toolCallId}: ${d.output.status} ${String(d.output.content)}`).join(' | ')}`;
      case 'turn.finished':
        return `finished ${e.status}`;
      default:
        return e.type;
    }
  });
}

const placeholder = (id: string) =>
  `result ${id}: ok build is running in the background as call ${id}; its output will be delivered in a later message when it finishes.`;

export function backgroundCases(harness: ConformanceHarness): void {
  describe(`background calls (${harness.name})`, () => {
    test('a background call that finishes while the next response streams is delivered once the batch of that response is recorded, as a user message the model then reads', async () => {
      const kit = backgroundKit({ held: ['r2'] });
      const model = scriptedModel([
        {
          toolCalls: [
            { id: 'b', name: 'build', args: { target: 'app' } },
            { id: 'r', name: 'read', args: { path: 'a' } },
          ],
        },
        {
          text: 'While it builds, one more file.',
          toolCalls: [{ id: 'r2', name: 'read', args: { path: 'b' } }],
        },
        { text: 'The build is done.' },
      ]);
      // What each request carried, copied when it was made.
      const asked: unknown[] = [];
      const held = heldBeforeFinish(model, 1, async () => {
        kit.release('b');
        await kit.returned('b');
      });
      const turn = await harness.start({
        turnId: uniqueTurnId('bg-during'),
        input: 'build and read',
        tools: kit.tools,
        // The build finishes while response 1 streams.
        model: {
          name: held.name,
          stream: (request) => {
            asked[request.responseIndex] = structuredClone(request.messages.at(-1));
            return held.stream(request);
          },
        },
      });
      const watch = follow(turn);
      // The second read ends only once the build's result is recorded (hosts feed results at their own pace).
      await watch.seen(finished('b'));
      kit.release('r2');
      const result = await turn.result;
      expect(shape(result.events)).toEqual([
        'turn.started',
        'requested 0',
        'responded 0 [b,r]',
        placeholder('b'),
        'result r: ok contents of a',
        'requested 1',
        'responded 1 [r2]',
        'result r2: ok contents of b',
        'delivered b: ok built app',
        'requested 2',
        'responded 2 []',
        'finished completed',
      ]);
      expect(asked[2]).toEqual({
        role: 'user',
        content: [{ type: 'text', text: 'Background call b (build) finished:\nbuilt app' }],
      });
      expect(result.outputs.map((o) => [o.toolCallId, o.status, o.content])).toEqual([
        ['b', 'ok', 'built app'],
        ['r', 'ok', 'contents of a'],
        ['r2', 'ok', 'contents of b'],
      ]);
      expect(transcriptProblems(result.transcript)).toEqual([]);
    });

    test('two background calls finishing out of launch order are delivered together, in launch order, once the batch that ran meanwhile is recorded', async () => {
      const kit = backgroundKit({ held: ['r'] });
      const turn = await harness.start({
        turnId: uniqueTurnId('bg-order'),
        input: 'build both',
        tools: kit.tools,
        model: scriptedModel([
          {
            toolCalls: [
              { id: 'b1', name: 'build', args: { target: 'one' } },
              { id: 'b2', name: 'build', args: { target: 'two' } },
            ],
          },
          { toolCalls: [{ id: 'r', name: 'read', args: { path: 'notes' } }] },
          { text: 'Both built.' },
        ]),
      });
      const watch = follow(turn);
      await watch.seen((e) => e.type === 'tool.attempt_started' && e.toolCallId === 'r');
      kit.release('b2');
      await watch.seen(finished('b2'));
      kit.release('b1');
      await watch.seen(finished('b1'));
      kit.release('r');
      const result = await turn.result;
      expect(shape(result.events)).toEqual([
        'turn.started',
        'requested 0',
        'responded 0 [b1,b2]',
        placeholder('b1'),
        placeholder('b2'),
        'requested 1',
        'responded 1 [r]',
        'result r: ok contents of notes',
        'delivered b1: ok built one | b2: ok built two',
        'requested 2',
        'responded 2 []',
        'finished completed',
      ]);
    });

    test('when the model answers without calls while a background call runs, the turn waits for it, then asks the model again', async () => {
      const kit = backgroundKit();
      const model = scriptedModel([
        { toolCalls: [{ id: 'b', name: 'build', args: { target: 'app' } }] },
        { text: 'I will wait for the build.' },
        { text: 'Built.' },
      ]);
      const turn = await harness.start({
        turnId: uniqueTurnId('bg-wait'),
        input: 'build',
        tools: kit.tools,
        model,
      });
      const watch = follow(turn);
      await watch.seen((e) => e.type === 'background.waiting');
      kit.release('b');
      const result = await turn.result;
      expect(shape(result.events)).toEqual([
        'turn.started',
        'requested 0',
        'responded 0 [b]',
        placeholder('b'),
        'requested 1',
        'responded 1 []',
        'delivered b: ok built app',
        'requested 2',
        'responded 2 []',
        'finished completed',
      ]);
      expect(result).toMatchObject({ status: 'completed', text: 'Built.', modelResponses: 3 });
    });

    test('maxBackgroundWaitMs bounds that wait: the call is stopped, delivered as interrupted, and the model is asked again', async () => {
      const kit = backgroundKit();
      const result = await harness
        .start({
          turnId: uniqueTurnId('bg-bound'),
          input: 'build',
          tools: kit.tools,
          timeouts: { maxBackgroundWaitMs: 1_000 },
          model: scriptedModel([
            { toolCalls: [{ id: 'b', name: 'build', args: { target: 'app' } }] },
            { text: 'Waiting.' },
            { text: 'The build did not finish in time.' },
          ]),
        })
        .then((turn) => turn.result);
      const stopped =
        'not completed: the turn waited 1000 ms (maxBackgroundWaitMs) for it to finish in the background';
      expect(shape(result.events)).toEqual([
        'turn.started',
        'requested 0',
        'responded 0 [b]',
        placeholder('b'),
        'requested 1',
        'responded 1 []',
        `delivered b: interrupted ${stopped}`,
        'requested 2',
        'responded 2 []',
        'finished completed',
      ]);
      expect(kit.aborted).toEqual(['b']);
    });

    test('a cancel stops a running background call; its interrupted output is delivered before the turn ends cancelled', async () => {
      const kit = backgroundKit();
      const turn = await harness.start({
        turnId: uniqueTurnId('bg-cancel'),
        input: 'build',
        tools: kit.tools,
        model: scriptedModel([
          {
            toolCalls: [
              { id: 'b', name: 'build', args: { target: 'app' } },
              { id: 'r', name: 'read', args: { path: 'a' } },
            ],
          },
          { text: 'Waiting for the build.' },
        ]),
      });
      const watch = follow(turn);
      await watch.seen((e) => e.type === 'background.waiting');
      await turn.cancel();
      const result = await turn.result;
      expect(result.status).toBe('cancelled');
      expect(shape(result.events)).toEqual([
        'turn.started',
        'requested 0',
        'responded 0 [b,r]',
        placeholder('b'),
        'result r: ok contents of a',
        'requested 1',
        'responded 1 []',
        'delivered b: interrupted not completed: the turn was cancelled',
        'finished cancelled',
      ]);
      expect(kit.aborted).toEqual(['b']);
      expect(transcriptProblems(result.transcript)).toEqual([]);
    });

    test('a call that shares a resource with a running background call waits for it, even in a later response', async () => {
      const kit = backgroundKit();
      const edits: string[] = [];
      const edit = defineTool({
        name: 'edit',
        description: 'Edits a workspace',
        input: z.object({ target: z.string() }),
        concurrencySafe: true,
        resources: ({ target }) => [`workspace:${target}`],
        execute: ({ target }, ctx) => {
          edits.push(ctx.toolCallId);
          return `edited ${target}`;
        },
      });
      const turn = await harness.start({
        turnId: uniqueTurnId('bg-conflict'),
        input: 'build and edit',
        tools: [...kit.tools, edit],
        model: scriptedModel([
          { toolCalls: [{ id: 'b', name: 'build', args: { target: 'app' } }] },
          {
            toolCalls: [
              { id: 'e1', name: 'edit', args: { target: 'app' } },
              { id: 'e2', name: 'edit', args: { target: 'lib' } },
            ],
          },
          { text: 'Done.' },
        ]),
      });
      const watch = follow(turn);
      await watch.seen(finished('e2'));
      // e2 ran beside the build; e1 waits for it.
      expect(edits).toEqual(['e2']);
      kit.release('b');
      const result = await turn.result;
      expect(edits).toEqual(['e2', 'e1']);
      expect(shape(result.events)).toEqual([
        'turn.started',
        'requested 0',
        'responded 0 [b]',
        placeholder('b'),
        'requested 1',
        'responded 1 [e1,e2]',
        'result e1: ok edited app',
        'result e2: ok edited lib',
        'delivered b: ok built app',
        'requested 2',
        'responded 2 []',
        'finished completed',
      ]);
    });
  });
}
