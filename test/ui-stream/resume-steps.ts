import type { UIMessage, UIMessageChunk } from 'ai';
import {
  type AssistantMessage,
  type JournalEntry,
  type PreparedCall,
  retryPolicySchema,
  type TurnWatchEvent,
} from 'durable-turns';
import { LiveTextAssembler } from '../../core/watch/live-text-assembler';
import { visibleParts } from '../../ui-stream/read-ui-message';
import { type PositionedChunk, positionedUiChunks } from '../../ui-stream/turn-ui-chunks';
import { messageOfChunks } from './sse-events';

/**
 * A turn as it happens: journal entries, and looks at a response while it streams (a model
 * activity's heartbeat on Temporal), each of some attempt `stream`, with the text so far.
 */
export type Step =
  | { entry: JournalEntry }
  | { look: { responseIndex: number; stream: string; text: string; reasoning: string } };

export const call = (toolCallId: string, toolName: string, requiresApproval: boolean): PreparedCall => ({
  toolCallId,
  toolName,
  input: { path: 'a' },
  policy: {
    concurrencySafe: !requiresApproval,
    retrySafe: !requiresApproval,
    requiresApproval,
    resources: [],
    retry: retryPolicySchema.parse({}),
  },
});
export const said = (text: string, reasoning = ''): AssistantMessage => ({
  role: 'assistant',
  content: [...(reasoning ? [{ type: 'reasoning' as const, text: reasoning }] : []), { type: 'text', text }],
});

/**
 * What a watcher that starts after step `from` sees, as both executors' watches make it: every
 * entry from the turn's start (each response's text whole before its record, unless it was seen
 * streaming), then the latest look at a response still streaming — as a tail of at most `tail`
 * characters, as a heartbeat carries it — then the rest as it happens. Each event says how many
 * steps had happened when it was seen.
 */
export function* watchFrom(
  turn: readonly Step[],
  from: number,
  { tail = Number.POSITIVE_INFINITY } = {},
): Generator<{ event: TurnWatchEvent; steps: number }> {
  const assembler = new LiveTextAssembler();
  let seq = 0;
  const lookAt = ({ look }: Extract<Step, { look: unknown }>) => {
    const tailOf = (text: string) => {
      const start = Math.max(0, text.length - tail);
      return { from: start, tail: text.slice(start) };
    };
    return assembler.snapshot({
      stream: look.stream,
      details: {
        responseIndex: look.responseIndex,
        text: tailOf(look.text),
        reasoning: tailOf(look.reasoning),
      },
    });
  };
  const entry = (value: JournalEntry): TurnWatchEvent[] => [
    ...(value.type === 'model.responded'
      ? assembler.complete({ responseIndex: value.responseIndex, message: value.message })
      : []),
    { kind: 'entry', seq: ++seq, entry: value },
  ];
  let latest: Extract<Step, { look: unknown }> | undefined;
  for (const step of turn.slice(0, from)) {
    if ('entry' in step) {
      for (const event of entry(step.entry)) yield { event, steps: from };
      if (step.entry.type === 'model.responded') latest = undefined;
    } else latest = step;
  }
  if (latest) for (const event of lookAt(latest)) yield { event, steps: from };
  for (const [index, step] of turn.entries()) {
    if (index < from) continue;
    for (const event of 'entry' in step ? entry(step.entry) : lookAt(step)) yield { event, steps: index + 1 };
  }
}

/** The live stream's chunks, each with the steps its watcher had seen when it was sent. */
export async function live(
  turn: readonly Step[],
  { tail }: { tail?: number } = {},
): Promise<(PositionedChunk & { steps: number })[]> {
  let steps = 0;
  async function* watch() {
    for (const seen of watchFrom(turn, 0, tail === undefined ? {} : { tail })) {
      steps = seen.steps;
      yield seen.event;
    }
  }
  const chunks: (PositionedChunk & { steps: number })[] = [];
  for await (const chunk of positionedUiChunks(watch(), { messageId: 'm' })) chunks.push({ ...chunk, steps });
  return chunks;
}

/** The message an `EventSource`-like client holds after reading these chunks as one stream. */
export const messageOf = messageOfChunks;

/**
 * What a person sees, by kind: the visible text and reasoning parts in order, each call's part, the
 * outcome. (Where a watcher that missed text places it beside the calls may differ; not what it says.)
 */
export function shown(message: UIMessage) {
  const parts = visibleParts(message);
  const of = (type: string) =>
    parts.flatMap((part) => (part.type === type && 'text' in part ? [`${part.text}|${part.state}`] : []));
  return {
    text: of('text'),
    reasoning: of('reasoning'),
    calls: parts.filter((part) => part.type === 'dynamic-tool'),
    steps: parts.filter((part) => part.type === 'step-start').length,
    outcome: parts.filter((part) => part.type === 'data-outcome'),
  };
}

/** The chunks that are not live text, in order: each is sent once, however the stream was read. */
export function notText(chunks: UIMessageChunk[]): string[] {
  return chunks
    .filter((chunk) => !/^(text|reasoning)-|^data-retracted$/.test(chunk.type))
    .map((chunk) => JSON.stringify(chunk));
}

export async function resumed(
  turn: readonly Step[],
  after: PositionedChunk['position'],
  from: number,
  tail?: number,
): Promise<UIMessageChunk[]> {
  async function* watch() {
    for (const { event } of watchFrom(turn, from, tail === undefined ? {} : { tail })) yield event;
  }
  const chunks: UIMessageChunk[] = [];
  for await (const { chunk } of positionedUiChunks(watch(), { messageId: 'm', after })) chunks.push(chunk);
  return chunks;
}
