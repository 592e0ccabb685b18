import {
  defineTool,
  InProcessExecutor,
  isTranscriptEvent,
  type JournalEntry,
  scriptedModel,
  TurnEngine,
} from 'durable-turns';
import { z } from 'zod';
import { MemoryJournal } from '../executors/journal/memory-journal';
import { echoTool as echo } from '../test/support/echo-tool';
import { packCarried, unpackCarried } from './carried-turn';
import { packJson } from './packed-json';

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
      const unpacked = unpackCarried(packed);
      expect(JSON.stringify(unpacked.events)).toBe(JSON.stringify(events));
      expect(unpacked.snapshot).toEqual(snapshot);
      expect(unpacked.snapshot.callIds).toEqual(snapshot.callIds);
      expect(unpacked.snapshot.detector).toEqual(snapshot.detector);
      expect(unpacked.progressSeq).toBe(cut);
      // The restored engine goes on as the original would.
      expect(TurnEngine.restore(unpacked.snapshot).snapshot()).toEqual(snapshot);
      if (packed.length < packJson({ snapshot, events }).length) compacted += 1;
    }
    expect(compacted).toBeGreaterThan(0);
  });

  test('a turn packed before calls were carried by reference still unpacks', async () => {
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
    const unpacked = unpackCarried(older);
    expect(unpacked.events).toEqual(events);
    expect(unpacked.snapshot).toEqual(snapshot);
    expect(unpacked.progressSeq).toBe(9);
  });
});
