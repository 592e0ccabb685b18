import {
  defineTool,
  InProcessExecutor,
  isTranscriptEvent,
  type JournalEntry,
  scriptedModel,
} from 'durable-turns';
import { z } from 'zod';
import type { KnownTranscript, TranscriptPage } from '../contract/turn-workflow';
import { TurnEngine } from '../core';
import { MemoryJournal } from '../executors/journal/memory-journal';
import { echoTool as echo } from '../test/support/echo-tool';
import {
  answerModelRequest,
  type HeldCounts,
  inlineRequestContext,
  offeredContextName,
  transcriptDigests,
} from '../workflows/activity-starts/model-request-answer';
import { packCarried, unpackCarried } from '../workflows/turn/carried-turn';
import { offerTranscript, readModelRequest } from './read-model-request';
import { TranscriptCache } from './transcript-cache';

/** The server's limit on one query answer (Temporal's default blob size limit). */
const serverPayloadLimit = 2 * 1024 * 1024;

/**
 * A tool whose output is `chars` characters, some of them three bytes in UTF-8 and some escaped
 * twice in JSON, so a page's size in characters is not its size in bytes.
 */
const bulky = (chars: number) =>
  defineTool({
    name: 'echo',
    description: 'Answers with a long text',
    input: z.object({ n: z.number() }),
    concurrencySafe: true,
    execute: ({ n }) => `${n} `.padEnd(chars, 'a"é漢\\n'),
  });

/** The journal of a turn of six responses with two calls each. */
async function journalOfTurn({ outputChars }: { outputChars?: number } = {}): Promise<JournalEntry[]> {
  const model = scriptedModel([
    ...Array.from({ length: 6 }, (_, r) => ({
      text: `step ${r}`,
      toolCalls: [0, 1].map((i) => ({ id: `c${r}_${i}`, name: 'echo', args: { n: r * 2 + i } })),
    })),
    { text: 'done' },
  ]);
  const journal = new MemoryJournal();
  const tools = [outputChars === undefined ? echo : bulky(outputChars)];
  await new InProcessExecutor({ tools, model, journal }).runTurn({ turnId: 't', input: 'go' });
  return journal.entries('t');
}

/**
 * A workflow run as the model activity sees it: its chain's id (the first run's) and its turn
 * engine, queried as over the wire.
 */
class FakeRun {
  private readonly digests = transcriptDigests();
  queries = 0;

  constructor(
    readonly epoch: string,
    readonly engine: TurnEngine,
  ) {}

  /** Answers as the server relays them: an answer over its payload limit fails, as there. */
  query = async (known?: KnownTranscript, page?: TranscriptPage) => {
    const answer = this.answer(known, page);
    const json = JSON.stringify(answer);
    if (Buffer.byteLength(json) > serverPayloadLimit) throw new Error('Blob data size exceeds limit.');
    return JSON.parse(json) as typeof answer;
  };

  private answer(known?: KnownTranscript, page?: TranscriptPage) {
    this.queries += 1;
    return answerModelRequest({
      view: this.engine.view,
      responseIndex: this.engine.view.responseIndex,
      epoch: this.epoch,
      known,
      page,
      digests: this.digests,
    });
  }

  /** The context the workflow sends with this request, given what the previous request read. */
  inline(held: HeldCounts, maxChars = 32 * 1024) {
    const { context, offered, reads } = inlineRequestContext({
      view: this.engine.view,
      epoch: this.epoch,
      held,
      digests: this.digests,
      maxChars,
    });
    const copy = <T>(value: T): T => value && (JSON.parse(JSON.stringify(value)) as T);
    return { context: copy(context), offered: copy(offered), reads };
  }

  /** What a read of the whole transcript gives (in one answer, whatever its size). */
  async full() {
    return JSON.parse(JSON.stringify(this.answer())) as ReturnType<FakeRun['answer']>;
  }
}

/** The run at each model request of the turn, all in one workflow run. */
async function requestPoints(epoch = 'run-1', journal = journalOfTurn()): Promise<FakeRun[]> {
  const entries = await journal;
  return entries.flatMap((entry, i) =>
    entry.type === 'model.requested' ? [new FakeRun(epoch, TurnEngine.replay(entries.slice(0, i + 1)))] : [],
  );
}

async function expectSameAsFullRead(run: FakeRun, cache: TranscriptCache) {
  const read = await readModelRequest({ workflowId: 'wf', transcripts: cache, query: run.query });
  const full = await run.full();
  expect(read).not.toBeNull();
  expect(JSON.stringify(read?.messages)).toBe(JSON.stringify(full?.messages));
  expect(read?.callIds).toEqual(full?.callIds);
  expect(read?.acceptedCallIds).toEqual(full?.acceptedCallIds);
}

describe('reading a model request incrementally', () => {
  test('each read gives exactly what a full read gives, and after the first only new messages travel', async () => {
    const runs = await requestPoints();
    const cache = new TranscriptCache();
    for (const run of runs) await expectSameAsFullRead(run, cache);
    expect(cache.reads).toEqual({ full: 1, incremental: runs.length - 1, inline: 0, offered: 0 });
    const last = runs.at(-1) as FakeRun;
    const held = cache.get('wf');
    const before = await runs.at(-2)?.full();
    const answer = await last.query({
      epoch: 'run-1',
      messageCount: (held?.messages.length ?? 0) - 2,
      messagesDigest: before?.messagesDigest ?? '',
      callIdCount: (held?.callIds.length ?? 0) - 2,
      callIdsDigest: before?.callIdsDigest ?? '',
    });
    expect(answer?.messages).toHaveLength(2);
    expect(answer?.callIds).toHaveLength(2);
  });

  test('after continue-as-new the next run still answers with only what is new', async () => {
    const entries = await journalOfTurn();
    const requested = entries.flatMap((e, i) => (e.type === 'model.requested' ? [i] : []));
    const [cut, next] = [requested[3] ?? 0, requested[4] ?? 0];
    /** The turn as the run after continue-as-new at entry `at` holds it, asking the model again. */
    const carriedRun = (at: number) => {
      const carried = unpackCarried(
        packCarried({
          snapshot: TurnEngine.replay(entries.slice(0, at)).snapshot(),
          events: entries.slice(0, at).filter(isTranscriptEvent),
        }),
      );
      const engine = TurnEngine.restore(carried.snapshot);
      expect(engine.next(Date.now()).op.kind).toBe('call-model');
      // The same chain: its first run's id.
      return new FakeRun('run-1', engine);
    };
    const cache = new TranscriptCache();
    await expectSameAsFullRead(new FakeRun('run-1', TurnEngine.replay(entries.slice(0, cut + 1))), cache);
    // The next run starts from the carried turn, its messages rebuilt from the events: they are
    // the same messages, so the prefix the worker holds still stands.
    await expectSameAsFullRead(carriedRun(cut), cache);
    expect(cache.reads).toEqual({ full: 1, incremental: 1, inline: 0, offered: 0 });
    // Later in that run (rebuilt here the same way; the messages are the same).
    await expectSameAsFullRead(carriedRun(next), cache);
    expect(cache.reads).toEqual({ full: 1, incremental: 2, inline: 0, offered: 0 });
  });

  test('a turn whose earlier messages were rewritten, as by a reset, answers in full', async () => {
    const entries = await journalOfTurn();
    const cache = new TranscriptCache();
    const before = await requestPoints('run-1', Promise.resolve(entries));
    await expectSameAsFullRead(before[3] as FakeRun, cache);
    // The same chain, the same counts, but the first response's text (far from the tail) differs.
    const rewritten = entries.map((e) =>
      e.type === 'model.responded' && e.responseIndex === 0
        ? (JSON.parse(JSON.stringify(e).replace('step 0', 'another step')) as typeof e)
        : e,
    );
    expect(JSON.stringify(rewritten)).not.toBe(JSON.stringify(entries));
    const after = await requestPoints('run-1', Promise.resolve(rewritten));
    await expectSameAsFullRead(after[4] as FakeRun, cache);
    expect(cache.reads).toEqual({ full: 2, incremental: 0, inline: 0, offered: 0 });
    // A chain of another turn under the same workflow id answers in full too.
    await expectSameAsFullRead((await requestPoints('run-9', Promise.resolve(entries)))[5] as FakeRun, cache);
    expect(cache.reads).toEqual({ full: 3, incremental: 0, inline: 0, offered: 0 });
  });

  test('a worker with an empty cache, or one that missed requests, reads the same transcript', async () => {
    const runs = await requestPoints();
    const busy = new TranscriptCache();
    for (const run of runs) await expectSameAsFullRead(run, busy);
    // A fresh worker reads it whole.
    const fresh = new TranscriptCache();
    await expectSameAsFullRead(runs.at(-1) as FakeRun, fresh);
    expect(fresh.reads).toEqual({ full: 1, incremental: 0, inline: 0, offered: 0 });
    // A worker that read request 1 and then saw none until the last extends what it has.
    const behind = new TranscriptCache();
    await expectSameAsFullRead(runs[1] as FakeRun, behind);
    await expectSameAsFullRead(runs.at(-1) as FakeRun, behind);
    expect(behind.reads).toEqual({ full: 1, incremental: 1, inline: 0, offered: 0 });
  });

  test('a held message that no longer matches, or a malformed claim, gets the whole transcript', async () => {
    const runs = await requestPoints();
    const cache = new TranscriptCache();
    await expectSameAsFullRead(runs[2] as FakeRun, cache);
    const held = cache.get('wf');
    if (!held) throw new Error('nothing held');
    // Another worker's copy whose last message differs (say, a partial response later replaced).
    cache.set('wf', { ...held, messagesDigest: 'not-the-same' });
    await expectSameAsFullRead(runs[3] as FakeRun, cache);
    expect(cache.reads).toEqual({ full: 2, incremental: 0, inline: 0, offered: 0 });
    const last = runs[3] as FakeRun;
    const garbage = await last.query({ epoch: 'run-1', messageCount: -1 } as unknown as KnownTranscript);
    expect(garbage?.messagesFrom).toBe(0);
    const beyond = await last.query({
      ...(await last.full()),
      messageCount: 999,
    } as unknown as KnownTranscript);
    expect(beyond?.messagesFrom).toBe(0);
  });

  test('a transcript larger than one query may answer is read in pages, and equals a full read', async () => {
    // Two outputs of 400,000 characters a response: each wave alone is near the limit in bytes.
    const runs = await requestPoints('run-1', journalOfTurn({ outputChars: 400_000 }));
    const last = runs.at(-1) as FakeRun;
    const whole = Buffer.byteLength(JSON.stringify((await last.full())?.messages));
    expect(whole).toBeGreaterThan(serverPayloadLimit);
    // A worker that holds nothing of it (a fresh one, or one that let it go) reads it whole.
    const fresh = new TranscriptCache();
    last.queries = 0;
    await expectSameAsFullRead(last, fresh);
    expect(last.queries).toBeGreaterThan(whole / serverPayloadLimit);
    expect(fresh.reads).toEqual({ full: 1, incremental: 0, inline: 0, offered: 0 });
    // A worker that follows the turn reads each wave's outputs, more than a page too.
    const following = new TranscriptCache();
    for (const run of runs) await expectSameAsFullRead(run, following);
    expect(following.reads).toEqual({ full: 1, incremental: runs.length - 1, inline: 0, offered: 0 });
  });

  test('pages that are not of one read fail the read, which is tried again', async () => {
    const runs = await requestPoints('run-1', journalOfTurn({ outputChars: 400_000 }));
    const [early, late] = [runs[2] as FakeRun, runs[4] as FakeRun];
    let asked = 0;
    // The first page from one transcript, the next from another (a reset between two queries).
    const query = (known?: KnownTranscript, page?: TranscriptPage) =>
      (asked++ === 0 ? early : late).query(known, page);
    await expect(
      readModelRequest({ workflowId: 'wf', transcripts: new TranscriptCache(), query }),
    ).rejects.toThrow('the transcript changed while it was read in pages');
  });

  test('a worker running many turns at once keeps each one between its requests', () => {
    // With a bound of 16 turns, 20 turns taking turns each evicted the next one to ask: every
    // request then read its whole transcript again.
    const cache = new TranscriptCache();
    const held = {
      epoch: 'e',
      messages: [],
      messagesDigest: '',
      callIds: [],
      callIdsDigest: '',
      bytes: 100_000,
    };
    const turns = Array.from({ length: 200 }, (_, i) => `turn-${i}`);
    for (const id of turns) cache.set(id, held);
    expect(turns.filter((id) => cache.get(id) === undefined)).toEqual([]);
  });

  test('the cache is bounded: least recently used turns go first, and idle ones are dropped', () => {
    let now = 0;
    const cache = new TranscriptCache({ maxTurns: 2, maxBytes: 100, idleMs: 1_000, now: () => now });
    const held = (bytes: number) => ({
      epoch: 'e',
      messages: [],
      messagesDigest: '',
      callIds: [],
      callIdsDigest: '',
      bytes,
    });
    cache.set('a', held(10));
    cache.set('b', held(10));
    cache.get('a');
    cache.set('a', held(10));
    cache.set('c', held(10));
    expect([cache.get('a'), cache.get('b'), cache.get('c')].map(Boolean)).toEqual([true, false, true]);
    cache.set('d', held(95));
    expect(cache.size).toEqual({ turns: 1, bytes: 95 });
    now = 2_000;
    expect(cache.get('d')).toBeUndefined();
    expect(cache.size).toEqual({ turns: 0, bytes: 0 });
  });
});

describe('a model request whose context came with it', () => {
  /** Reads every request of the turn as the workflow sends them, the previous request's reads held. */
  async function readAll(runs: FakeRun[], cache: TranscriptCache, maxChars?: number) {
    let held: HeldCounts = { messageCount: 0, callIdCount: 0 };
    const sizes: number[] = [];
    for (const run of runs) {
      const { context, reads } = run.inline(held, maxChars);
      held = reads;
      sizes.push(context ? JSON.stringify(context.messages).length : -1);
      const read = await readModelRequest({
        workflowId: 'wf',
        transcripts: cache,
        query: run.query,
        ...(context ? { inline: context } : {}),
      });
      const full = await run.full();
      expect(JSON.stringify(read?.messages)).toBe(JSON.stringify(full?.messages));
      expect(read?.callIds).toEqual(full?.callIds);
      expect(read?.acceptedCallIds).toEqual(full?.acceptedCallIds);
    }
    return sizes;
  }

  test('is read without asking the workflow, and gives what a full read gives', async () => {
    const runs = await requestPoints();
    const cache = new TranscriptCache();
    await readAll(runs, cache);
    expect(cache.reads).toEqual({ full: 0, incremental: 0, inline: runs.length, offered: 0 });
    // Only the full reads the check above made: none to read a request.
    expect(runs.map((r) => r.queries)).toEqual(runs.map(() => 1));
  });

  test('carries only what came after the previous request, so it stays small as the turn grows', async () => {
    const runs = await requestPoints();
    const sizes = await readAll(runs, new TranscriptCache());
    const later = sizes.slice(1);
    // Each later request adds one response and its two outputs: the same size, however long the turn.
    expect(Math.max(...later)).toBeLessThan(Math.min(...later) * 1.5);
    const whole = JSON.stringify((await runs.at(-1)?.full())?.messages).length;
    expect(Math.max(...later)).toBeLessThan(whole / 3);
  });

  test('a worker that does not hold the previous request reads by query, and gets the same', async () => {
    const runs = await requestPoints();
    // It read request 1 only: request 4's context extends request 3's, which it does not hold.
    const behind = new TranscriptCache();
    const first = runs[1] as FakeRun;
    await readModelRequest({ workflowId: 'wf', transcripts: behind, query: first.query });
    const run = runs[4] as FakeRun;
    const { context } = run.inline((runs[3] as FakeRun).inline({ messageCount: 0, callIdCount: 0 }).reads);
    expect(context?.messagesFrom).toBeGreaterThan(0);
    const read = await readModelRequest({
      workflowId: 'wf',
      transcripts: behind,
      query: run.query,
      ...(context ? { inline: context } : {}),
    });
    expect(JSON.stringify(read?.messages)).toBe(JSON.stringify((await run.full())?.messages));
    expect(behind.reads).toEqual({ full: 1, incremental: 1, inline: 0, offered: 0 });
    // One that holds as many messages, but other ones (its digest differs), reads too.
    const other = new TranscriptCache();
    await readModelRequest({ workflowId: 'wf', transcripts: other, query: (runs[3] as FakeRun).query });
    const held = other.get('wf');
    if (!held) throw new Error('nothing held');
    other.set('wf', { ...held, messagesDigest: 'not-the-same' });
    await readModelRequest({
      workflowId: 'wf',
      transcripts: other,
      query: run.query,
      ...(context ? { inline: context } : {}),
    });
    expect(other.reads).toEqual({ full: 2, incremental: 0, inline: 0, offered: 0 });
  });

  test('is not sent when what it adds is larger than the limit: the request reads by query', async () => {
    const runs = await requestPoints();
    const cache = new TranscriptCache();
    const sizes = await readAll(runs, cache, 10);
    expect(sizes.every((s) => s === -1)).toBe(true);
    expect(cache.reads).toEqual({ full: 1, incremental: runs.length - 1, inline: 0, offered: 0 });
  });
});

describe('a model request whose context was too large to travel with it', () => {
  /** Every request of the turn with a limit nothing fits under: each context is offered instead. */
  async function offerAll(runs: FakeRun[], readers: { offeredTo: TranscriptCache; readBy: TranscriptCache }) {
    let held: HeldCounts = { messageCount: 0, callIdCount: 0 };
    for (const run of runs) {
      const { context, offered, reads } = run.inline(held, 10);
      expect(context).toBeUndefined();
      if (!offered) throw new Error('nothing offered');
      held = reads;
      offerTranscript(readers.offeredTo, 'wf', offered);
      const read = await readModelRequest({
        workflowId: 'wf',
        transcripts: readers.readBy,
        query: run.query,
        offered: offeredContextName(offered),
      });
      const full = await run.full();
      expect(JSON.stringify(read?.messages)).toBe(JSON.stringify(full?.messages));
      expect(read?.callIds).toEqual(full?.callIds);
      expect(read?.acceptedCallIds).toEqual(full?.acceptedCallIds);
    }
  }

  test('is handed to the worker before the request begins: the request asks nothing, and gives what a full read gives', async () => {
    const runs = await requestPoints();
    const cache = new TranscriptCache();
    await offerAll(runs, { offeredTo: cache, readBy: cache });
    expect(cache.reads).toEqual({ full: 0, incremental: 0, inline: 0, offered: runs.length });
    // Only the full reads the check made.
    expect(runs.map((r) => r.queries)).toEqual(runs.map(() => 1));
  });

  test('a request on a worker it was not handed to (another worker, or one restarted) reads by query, and gets the same', async () => {
    const runs = await requestPoints();
    const elsewhere = new TranscriptCache();
    await offerAll(runs, { offeredTo: new TranscriptCache(), readBy: elsewhere });
    expect(elsewhere.reads).toEqual({ full: 1, incremental: runs.length - 1, inline: 0, offered: 0 });
  });

  test('an offer that does not extend what the worker holds is not taken: the request reads by query', async () => {
    const runs = await requestPoints();
    const cache = new TranscriptCache();
    await readModelRequest({ workflowId: 'wf', transcripts: cache, query: (runs[1] as FakeRun).query });
    const held = cache.get('wf');
    if (!held) throw new Error('nothing held');
    cache.set('wf', { ...held, messagesDigest: 'not-the-same' });
    const run = runs[3] as FakeRun;
    const { offered } = run.inline(
      (runs[2] as FakeRun).inline({ messageCount: 0, callIdCount: 0 }, 10).reads,
      10,
    );
    if (!offered) throw new Error('nothing offered');
    expect(offered.messagesFrom).toBeGreaterThan(0);
    offerTranscript(cache, 'wf', offered);
    expect(cache.get('wf')?.messagesDigest).toBe('not-the-same');
    const read = await readModelRequest({
      workflowId: 'wf',
      transcripts: cache,
      query: run.query,
      offered: offeredContextName(offered),
    });
    expect(JSON.stringify(read?.messages)).toBe(JSON.stringify((await run.full())?.messages));
    expect(cache.reads).toEqual({ full: 2, incremental: 0, inline: 0, offered: 0 });
  });
});
