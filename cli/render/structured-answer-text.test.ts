import {
  defineTool,
  InProcessExecutor,
  type JournalEntry,
  MemoryJournal,
  scriptedModel,
} from 'durable-turns';
import pc from 'picocolors';
import { z } from 'zod';
import { progressLines } from './progress-lines';
import { renderFrame } from './render-frame';
import { outputSectionLines, structuredAnswerLines } from './structured-answer-text';
import { applyTurnEvent, emptyTurnDisplay } from './turn-display';
import type { TurnEvent } from './turn-event';

const plain = pc.createColors(false);
const context = { prefix: 'durable-turns' };
const city = z.object({ city: z.string(), population: z.number() });

/** A real turn's journal: a lookup, an answer in prose (rejected), then the answer as JSON. */
async function structuredTurn({ turnId }: { turnId: string }): Promise<JournalEntry[]> {
  const journal = new MemoryJournal();
  const lookup = defineTool({
    name: 'lookup',
    description: 'Looks a city up',
    input: z.object({ name: z.string() }),
    execute: ({ name }) => `${name}: 709,000 people`,
  });
  const executor = new InProcessExecutor({
    tools: [lookup],
    journal,
    model: scriptedModel([
      { text: 'Looking it up.', toolCalls: [{ id: 'l1', name: 'lookup', args: { name: 'Oslo' } }] },
      { text: 'Oslo, with about 709,000 people.' },
      { text: '{"city":"Oslo","population":709000}' },
    ]),
  });
  await executor.runTurn({ turnId, input: 'Which city?', output: { schema: city } });
  const session = await journal.open({ turnId, owner: 'reader', takeOver: true });
  return (await session.load()).entries;
}

function shown({ turnId, entries }: { turnId: string; entries: JournalEntry[] }) {
  const display = emptyTurnDisplay({ turnId });
  const lines = entries.flatMap((entry, i) => {
    const event: TurnEvent = { kind: 'entry', seq: i + 1, entry };
    applyTurnEvent({ display, event });
    return progressLines({ display, event, colors: plain, context });
  });
  return { display, lines };
}

describe('a turn asked for a structured answer, as the CLI shows it', () => {
  test('the plain log says which answer did not match and why, and that it was asked again; the end carries the value', async () => {
    const { display, lines } = shown({ turnId: 's1', entries: await structuredTurn({ turnId: 's1' }) });
    const rejected = lines.filter((l) => l.includes('did not match the output schema'));
    // Its first answer is the turn's second response: both numbers are said.
    expect(rejected).toEqual([
      expect.stringMatching(
        /^ {2}answer 1 \(response 2\) did not match the output schema; asked again: the answer is not JSON \(.+\)$/,
      ),
    ]);
    expect(lines).toContain('turn s1 completed');
    expect(display.finished).toEqual({ status: 'completed', output: { city: 'Oslo', population: 709_000 } });
  });

  test('the live frame marks the rejected answer under its response, cut to the width', async () => {
    const { display } = shown({ turnId: 's2', entries: await structuredTurn({ turnId: 's2' }) });
    const frame = renderFrame({ display, now: Date.now(), colors: plain, width: 80 });
    const at = frame.findIndex((l) => l.startsWith('  response 2  Oslo, with about'));
    expect(frame[at + 1]).toMatch(
      /^ {4}answer 1 \(response 2\) did not match the output schema; asked again: /,
    );
    expect(frame.filter((l) => l.length >= 80)).toEqual([]);
    expect(frame.some((l) => l.startsWith('  response 3  {"city":"Oslo"'))).toBe(true);
  });

  test('the value prints as indented JSON: on stdout after `run`, under `output:` in `show`', () => {
    const value = { city: 'Oslo', tags: ['capital'] };
    expect(structuredAnswerLines({ output: value })).toEqual([
      '{',
      '  "city": "Oslo",',
      '  "tags": [',
      '    "capital"',
      '  ]',
      '}',
    ]);
    expect(structuredAnswerLines({ output: null })).toEqual(['null']);
    expect(outputSectionLines({ output: 'yes', colors: plain })).toEqual(['output:', '    "yes"']);
  });
});
