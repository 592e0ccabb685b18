import { payloadKeyMissingType } from '../contract/activities';
import { DurableTurnsError, hasMarker } from '../core/errors/durable-turns-error';

const marker = Symbol.for('durable-turns.payload-key-missing-error');

const messages = {
  none: (keyId: string) =>
    `a payload is encrypted with key ${keyId}, and this process holds no encryption keys: set DURABLE_TURNS_ENCRYPTION_KEYS (with key ${keyId}) to read it`,
  missing: (keyId: string) =>
    `a payload is encrypted with key ${keyId}, which this process does not hold: add it to DURABLE_TURNS_ENCRYPTION_KEYS (after the active key)`,
  wrong: (keyId: string) =>
    `a payload encrypted with key ${keyId} does not open with the key listed under that id: it is a different key`,
};

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
    /** `none`: this process holds no keys at all; `missing`: not this one; `wrong`: another key under its id. */
    readonly why: 'none' | 'missing' | 'wrong',
  ) {
    super(messages[why](keyId), { code: 'payload-key-missing' });
  }

  static override isInstance(error: unknown): error is PayloadKeyMissingError {
    return hasMarker(error, marker);
  }
}
