/**
 * Timestamps the benchmarks read instead of trusting wall time around a whole turn: when a model
 * stream started, when it yielded each tool call and when it ended; when each tool started and ended.
 * All on this process's `performance.now()` clock (the Temporal worker runs in the bench process).
 */
import type { ModelRequest, ModelStreamPart, TurnModel } from 'durable-turns';

export interface StreamTimes {
  /** The consumer asked for the first part. */
  startedAt: number;
  /** When the model yielded each tool-call part, by tool call id. */
  callYieldedAt: Map<string, number>;
  endedAt?: number;
}

export class StreamClock {
  /** By `<turnId>#<responseIndex>` (a retried request overwrites its earlier attempt). */
  readonly streams = new Map<string, StreamTimes>();

  wrap(model: TurnModel): TurnModel {
    return { name: model.name, stream: (request) => this.timed(model, request) };
  }

  get(turnId: string, responseIndex: number): StreamTimes | undefined {
    return this.streams.get(`${turnId}#${responseIndex}`);
  }

  clear(): void {
    this.streams.clear();
  }

  private async *timed(model: TurnModel, request: ModelRequest): AsyncIterable<ModelStreamPart> {
    // An async generator's body runs on the first `next()`: this is when the consumer starts reading.
    const times: StreamTimes = { startedAt: performance.now(), callYieldedAt: new Map() };
    this.streams.set(`${request.turnId}#${request.responseIndex}`, times);
    for await (const part of model.stream(request)) {
      if (part.type === 'tool-call') times.callYieldedAt.set(part.toolCallId, performance.now());
      yield part;
    }
    times.endedAt = performance.now();
  }
}

export interface ToolTimes {
  startedAt: number;
  endedAt?: number;
}

export class ToolClock {
  /** By `<turnId>/<toolCallId>`. */
  readonly calls = new Map<string, ToolTimes>();

  start(turnId: string, toolCallId: string): ToolTimes {
    const times: ToolTimes = { startedAt: performance.now() };
    this.calls.set(`${turnId}/${toolCallId}`, times);
    return times;
  }

  get(turnId: string, toolCallId: string): ToolTimes | undefined {
    return this.calls.get(`${turnId}/${toolCallId}`);
  }

  /** The calls of one turn. */
  ofTurn(turnId: string): ToolTimes[] {
    const prefix = `${turnId}/`;
    return [...this.calls].filter(([key]) => key.startsWith(prefix)).map(([, times]) => times);
  }

  clear(): void {
    this.calls.clear();
  }
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}
