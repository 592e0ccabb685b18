import type { AttemptResult } from '../schema/attempt-result';
import type { JournalEntry } from '../schema/journal-entry';

export interface ToolPreEvent {
  turnId: string;
  toolCallId: string;
  toolName: string;
  attempt: number;
  args: unknown;
}

export interface ToolPostEvent extends ToolPreEvent {
  durationMs: number;
  isError: boolean;
  status: AttemptResult['status'];
  /** Hash of what the attempt returned (absent when it did not finish). */
  resultHash?: string;
  result: AttemptResult;
}

export interface ModelDeltaEvent {
  turnId: string;
  responseIndex: number;
  type: 'text' | 'reasoning';
  delta: string;
}

/**
 * Watches a turn as it happens. Tool events fire on every attempt; in parallel mode the events of
 * different calls interleave, so pair `onToolPre`/`onToolPost` by `toolCallId` and `attempt`.
 * Observers are told, never asked: an observer that throws, or whose promise rejects, is ignored.
 */
export interface TurnObserver {
  onToolPre?(event: ToolPreEvent): void;
  onToolPost?(event: ToolPostEvent): void;
  onModelDelta?(event: ModelDeltaEvent): void;
  /** Every journal entry once it is recorded (only those of `entryTypes`, when given). */
  onEntry?(event: { turnId: string; entry: JournalEntry }): void;
  /**
   * The entry types `onEntry` wants; absent, it hears them all. A turn of a thousand calls writes
   * four entries a call: an observer that needs none of those need not be called for them.
   */
  entryTypes?: ReadonlySet<JournalEntry['type']>;
  /** A hook failed under the `warn` policy. */
  onHookWarning?(event: { turnId: string; toolCallId: string; hook: string; error: string }): void;
}

/** The methods of an observer, which `notifyObservers` calls. */
export type ObserverMethod = Exclude<keyof TurnObserver, 'entryTypes'>;

/**
 * Calls one method on every observer and never throws: an observer must never break the turn it
 * watches. A method may be `async` (a `() => Promise<void>` is a `() => void` to TypeScript), so a
 * promise it returns gets a rejection handler: unhandled, its rejection would end the process.
 */
export function notifyObservers<K extends ObserverMethod>(
  observers: readonly TurnObserver[],
  method: K,
  event: Parameters<NonNullable<TurnObserver[K]>>[0],
): void {
  for (const observer of observers) {
    try {
      const fn = methodOf(observer, method) as ((e: typeof event) => unknown) | undefined;
      if (!fn) continue;
      const returned = fn.call(observer, event);
      // Most observers return nothing: only a returned object is looked at.
      if (returned !== undefined) ignoreRejection(returned);
    } catch {
      // Whatever it threw, and even a getter on the observer that threw: ignored, as promised.
    }
  }
}

/**
 * A load of one name per method: `observer[method]`, one keyed load for every method and observer
 * shape, goes megamorphic, and it runs for every event of a turn (several per tool call).
 */
function methodOf(observer: TurnObserver, method: ObserverMethod): unknown {
  switch (method) {
    case 'onToolPre':
      return observer.onToolPre;
    case 'onToolPost':
      return observer.onToolPost;
    case 'onEntry':
      return observer.onEntry;
    case 'onModelDelta':
      return observer.onModelDelta;
    default:
      return observer.onHookWarning;
  }
}

function ignoreRejection(value: unknown): void {
  if (typeof value !== 'object' && typeof value !== 'function') return;
  if (value === null) return;
  const then = (value as { then?: unknown }).then;
  if (typeof then === 'function') then.call(value, undefined, ignore);
}

const ignore = () => {};
