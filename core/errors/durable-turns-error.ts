const marker = Symbol.for('durable-turns.error');

/** Whether `value` is an object carrying `marker` (a `Symbol.for` key, the same in every module copy). */
export function hasMarker(value: unknown, marker: symbol): boolean {
  return typeof value === 'object' && value !== null && marker in value;
}

/**
 * The base of every error durable-turns throws on purpose. `code` is stable: branch on it, not on
 * the message, which says what to do and may change. `isInstance` checks a `Symbol.for` marker
 * instead of the prototype chain, as the AI SDK's errors do: `instanceof` fails across copies of a
 * module (a worker and its bundled workflow code, or two installed versions, each load their own).
 * Each subclass has a marker and an `isInstance` of its own.
 */
export class DurableTurnsError extends Error {
  readonly [marker] = true;
  readonly code: string;

  constructor(message: string, { code, cause }: { code: string; cause?: unknown }) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'DurableTurnsError';
    this.code = code;
  }

  static isInstance(value: unknown): value is DurableTurnsError {
    return hasMarker(value, marker);
  }
}
