import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  defineTool,
  InProcessExecutor,
  isTranscriptEvent,
  type JournalEntry,
  scriptedModel,
} from 'durable-turns';
import { z } from 'zod';
import { packJson } from '../../contract/packed-json';
import { TurnEngine } from '../../core';
import { MemoryJournal } from '../../executors/journal/memory-journal';
import { echoTool as echo } from '../../test/support/echo-tool';
import { type PackedCarry, packCarried, unpackCarried } from './carried-turn';

const write = defineTool({
  name: 'write',
  description: 'A tool with a policy of its own',
  input: z.object({ path: z.string() }),
  resources: ({ path }) => [path],
  retry: { maxAttempts: 3, initialDelayMs: 1 },
  timeoutMs: 5_000,
  execute: ({ path }) => `wrote ${path}`,
});

/** A turn with plain calls, two policies, rejected calls (repeated id, unknown tool, bad arguments) and loop warnings. */
async function journalOfTurn(): Promise<JournalEntry[]> {
  const model = scriptedModel([
    {
      text: 'starting',
      toolCalls: [
        { id: 'a1', name: 'echo', args: { n: 1 } },
        { id: 'a2', name: 'write', args: { path: '/x' } },
        { id: 'a3', name: 'echo', args: { n: 3 } },
      ],
    },
    {
      toolCalls: [
        { id: 'a1', name: 'echo', args: { n: 4 } },
        { id: 'b2', name: 'nope', args: {} },
        { id: 'b3', name: 'echo', args: '{"n": ' },
        { id: 'b4', name: 'echo', args: { n: 7 } },
      ],
    },
    ...[1, 2, 3, 4].map((r) => ({ toolCalls: [{ id: `same${r}`, name: 'echo', args: { n: 7 } }] })),
    // A wider response, as real turns have: what carrying calls by reference saves shows past the head's fixed size.
    {
      toolCalls: Array.from({ length: 12 }, (_, i) => ({ id: `w${i}`, name: 'echo', args: { n: 100 + i } })),
    },
    { text: 'done' },
  ]);
  const journal = new MemoryJournal();
  const executor = new InProcessExecutor({ tools: [echo, write], model, journal });
  const result = await executor.runTurn({ turnId: 'carried', input: 'go' });
  expect(result.status).toBe('completed');
  expect(result.outputs.some((o) => o.notice)).toBe(true);
  expect(result.outputs.filter((o) => o.status === 'error')).toHaveLength(3);
  return journal.entries('carried');
}

describe('a carried turn', () => {
  test('unpacks to the same snapshot and the very same events, cut after any journal entry', async () => {
    const entries = await journalOfTurn();
    let compacted = 0;
    for (let cut = 2; cut <= entries.length; cut++) {
      const prefix = entries.slice(0, cut);
      const snapshot = TurnEngine.replay(prefix).snapshot();
      const events = prefix.filter(isTranscriptEvent);
      const packed = packCarried({ snapshot, events, progressSeq: cut });
      expect(packed.chunks).toHaveLength(1);
      const unpacked = unpackCarried(packed);
      expect(JSON.stringify(unpacked.events)).toBe(JSON.stringify(events));
      expect(unpacked.snapshot).toEqual(snapshot);
      expect(unpacked.snapshot.callIds).toEqual(snapshot.callIds);
      expect(unpacked.snapshot.detector).toEqual(snapshot.detector);
      expect(unpacked.progressSeq).toBe(cut);
      // The restored engine goes on as the original would.
      expect(TurnEngine.restore(unpacked.snapshot).snapshot()).toEqual(snapshot);
      const size = packed.head.length + (packed.chunks[0]?.length ?? 0);
      if (size < packJson({ snapshot, events }).length) compacted += 1;
    }
    expect(compacted).toBeGreaterThan(0);
  });

  test('over several runs, each packs only its own events and passes the earlier chunks on as they were', async () => {
    const entries = await journalOfTurn();
    const cuts = [5, 11, 11, 18, entries.length];
    let packed = packCarried({ snapshot: TurnEngine.replay(entries.slice(0, 2)).snapshot(), events: [] });
    expect(packed.chunks).toEqual([]);
    for (const cut of cuts) {
      const { packedChunks } = unpackCarried(packed);
      const prefix = entries.slice(0, cut);
      const snapshot = TurnEngine.replay(prefix).snapshot();
      const events = prefix.filter(isTranscriptEvent);
      const next = packCarried({ snapshot, events, progressSeq: cut }, packedChunks);
      // The earlier chunks are the very same strings; a run with no new events adds no chunk.
      expect(next.chunks.slice(0, packed.chunks.length)).toEqual(packed.chunks);
      expect(next.chunks.length - packed.chunks.length).toBe(events.length > packedChunks.eventCount ? 1 : 0);
      const unpacked = unpackCarried(next);
      expect(JSON.stringify(unpacked.events)).toBe(JSON.stringify(events));
      expect(unpacked.snapshot).toEqual(snapshot);
      expect(unpacked.packedChunks.eventCount).toBe(events.length);
      packed = next;
    }
    expect(packed.chunks.length).toBe(4);
  });

  test('a turn packed before calls were carried by reference, or before events were chunked, still unpacks', async () => {
    const entries = await journalOfTurn();
    const snapshot = TurnEngine.replay(entries.slice(0, -1)).snapshot();
    const events = entries.slice(0, -1).filter(isTranscriptEvent);
    const notices: Record<string, string> = {};
    for (const message of snapshot.messages) {
      if (message.role !== 'tool') continue;
      for (const part of message.content)
        if (part.output.notice) notices[part.toolCallId] = part.output.notice;
    }
    const older = packJson({ snapshot: { ...snapshot, messages: [] }, events, progressSeq: 9, notices });
    const unpacked = unpackCarried({ head: older, chunks: [] });
    expect(unpacked.events).toEqual(events);
    expect(unpacked.snapshot).toEqual(snapshot);
    expect(unpacked.progressSeq).toBe(9);
    // Its events were in no chunk: the next continue-as-new packs them all into the first one.
    expect(unpacked.packedChunks).toEqual({ chunks: [], eventCount: 0 });
    const next = unpackCarried(packCarried(unpacked, unpacked.packedChunks));
    expect(next.events).toEqual(events);
    expect(next.packedChunks.eventCount).toBe(events.length);
  });

  test('a turn packed by older code, with the loop detector’s whole-turn counts by column, still unpacks and goes on', () => {
    // Packed before the detector kept a window (snapshot version 1), from the snapshot in
    // core/engine/fixtures/turn-snapshot-v1.json, cut before the turn's last model response.
    const older = JSON.parse(
      readFileSync(join(__dirname, 'fixtures', 'carried-turn-v1.json'), 'utf8'),
    ) as PackedCarry;
    const written = JSON.parse(
      readFileSync(
        join(__dirname, '..', '..', 'core', 'engine', 'fixtures', 'turn-snapshot-v1.json'),
        'utf8',
      ),
    );
    const unpacked = unpackCarried(older);
    // All of it but the counts, which the windowed detector drops.
    expect(unpacked.snapshot).toEqual({ ...written, detector: { ...written.detector, counts: [] } });
    const engine = TurnEngine.restore(unpacked.snapshot);
    expect(engine.snapshot().detector).toEqual({ recent: written.detector.history, latest: [] });
    expect(engine.next(1).op.kind).toBe('call-model');
    const next = unpackCarried(
      packCarried({ ...unpacked, snapshot: engine.snapshot() }, unpacked.packedChunks),
    );
    expect(next.events).toEqual(unpacked.events);
    expect(TurnEngine.restore(next.snapshot).snapshot()).toEqual(engine.snapshot());
  });
});
