import { payloadKeyMissingType } from '../contract/activities';
import { DurableTurnsError, hasMarker } from '../core/errors/durable-turns-error';

const marker = Symbol.for('durable-turns.payload-key-missing-error');

/**
 * A payload encrypted with a key this process does not hold (or that does not open it). A distinct
 * type, so what reads it can tell "this host cannot read it" from "the data is bad": a workflow task
 * fails and is retried (a worker with the key will take it), a tool attempt counts as never started.
 */
export class PayloadKeyMissingError extends DurableTurnsError {
  readonly [marker] = true;
  override readonly name = payloadKeyMissingType;
  constructor(
    readonly keyId: string,
    why: 'missing' | 'wrong',
  ) {
    super(
      why === 'missing'
        ? `a payload is encrypted with key ${keyId}, which this process does not hold: add it to DURABLE_TURNS_ENCRYPTION_KEYS (after the active key)`
        : `a payload encrypted with key ${keyId} does not open with the key listed under that id: it is a different key`,
      { code: 'payload-key-missing' },
    );
  }

  static override isInstance(error: unknown): error is PayloadKeyMissingError {
    return hasMarker(error, marker);
  }
}
