import {
  defineTool,
  type ToolPostEvent,
  type ToolPreEvent,
  type TranscriptEvent,
  type TurnObserver,
} from 'durable-turns';
import { z } from 'zod';

let counter = 0;
/** A turn id no other test uses (Temporal keeps finished turns, and ids are fences). */
export function uniqueTurnId(label: string): string {
  counter += 1;
  return `${label}-${process.pid}-${Date.now().toString(36)}-${counter}`;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Records when tool executions start and end, to check waves and concurrency. */
export class Timeline {
  readonly marks: { at: number; kind: 'start' | 'end'; key: string }[] = [];
  private running = 0;
  maxConcurrent = 0;

  start(key: string): void {
    this.running += 1;
    this.maxConcurrent = Math.max(this.maxConcurrent, this.running);
    this.marks.push({ at: performance.now(), kind: 'start', key });
  }

  end(key: string): void {
    this.running -= 1;
    this.marks.push({ at: performance.now(), kind: 'end', key });
  }

  /**
   * Resolves once `key` has started, or after `limitMs`: a call held until another one starts is
   * seen to overlap it whenever they run in one wave, however slowly the host dispatches them;
   * only a run where they do not waits out the limit.
   */
  async started(key: string, limitMs = 30_000): Promise<void> {
    const until = performance.now() + limitMs;
    while (!this.marks.some((m) => m.kind === 'start' && m.key === key) && performance.now() < until)
      await sleep(5);
  }

  indexOf(kind: 'start' | 'end', key: string): number {
    const i = this.marks.findIndex((m) => m.kind === kind && m.key === key);
    if (i < 0)
      throw new Error(
        `${key} never had a ${kind}; marks: ${JSON.stringify(this.marks.map((m) => `${m.kind}:${m.key}`))}`,
      );
    return i;
  }

  /** `a` ended before `b` started. */
  endedBeforeStart(a: string, b: string): boolean {
    return this.indexOf('end', a) < this.indexOf('start', b);
  }

  /** `a` and `b` ran at the same time. */
  overlapped(a: string, b: string): boolean {
    return (
      this.indexOf('start', a) < this.indexOf('end', b) && this.indexOf('start', b) < this.indexOf('end', a)
    );
  }

  startOrder(): string[] {
    return this.marks.filter((m) => m.kind === 'start').map((m) => m.key);
  }
}

const fileArgs = z.object({
  path: z.string(),
  delayMs: z.number().optional(),
  content: z.string().optional(),
});

/** read_file (safe, resource `file:<path>`) and write_file (unsafe), both recording into a timeline. */
/** `holdUntil`: a call id → the call whose start it waits for before it ends (see `Timeline.started`). */
export function fileTools(
  timeline: Timeline,
  defaultDelayMs = 60,
  { holdUntil = {} }: { holdUntil?: Record<string, string> } = {},
) {
  const read = defineTool({
    name: 'read_file',
    description: 'Reads a file',
    input: fileArgs,
    concurrencySafe: true,
    resources: (a) => [`file:${a.path}`],
    retrySafe: true,
    execute: async (a, ctx) => {
      timeline.start(ctx.toolCallId);
      await sleep(a.delayMs ?? defaultDelayMs);
      const other = holdUntil[ctx.toolCallId];
      if (other) await timeline.started(other);
      timeline.end(ctx.toolCallId);
      return `contents of ${a.path}`;
    },
  });
  const write = defineTool({
    name: 'write_file',
    description: 'Writes a file',
    input: fileArgs,
    resources: (a) => [`file:${a.path}`],
    execute: async (a, ctx) => {
      timeline.start(ctx.toolCallId);
      await sleep(a.delayMs ?? defaultDelayMs);
      timeline.end(ctx.toolCallId);
      return `wrote ${a.path}`;
    },
  });
  return { read, write };
}

/** An observer that keeps every tool event, to count per-attempt pre/post pairs. */
export class RecordingObserver implements TurnObserver {
  readonly pre: ToolPreEvent[] = [];
  readonly post: ToolPostEvent[] = [];
  readonly deltas: string[] = [];
  /** `pre:<id>#<attempt>` / `post:<id>#<attempt>` in arrival order. */
  readonly order: string[] = [];

  onToolPre(event: ToolPreEvent): void {
    this.pre.push(event);
    this.order.push(`pre:${event.toolCallId}#${event.attempt}`);
  }

  onToolPost(event: ToolPostEvent): void {
    this.post.push(event);
    this.order.push(`post:${event.toolCallId}#${event.attempt}`);
  }

  onModelDelta(event: { delta: string }): void {
    this.deltas.push(event.delta);
  }
}

/** Events with the turn id blanked, to compare two runs of one script under different turn ids. */
export function withoutTurnId(events: readonly TranscriptEvent[]): TranscriptEvent[] {
  return events.map((e) => (e.type === 'turn.started' ? { ...e, turnId: '*' } : e));
}
