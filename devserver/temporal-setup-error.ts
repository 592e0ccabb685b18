import { DurableTurnsError, hasMarker } from '../core/errors/durable-turns-error';

const marker = Symbol.for('durable-turns.TemporalSetupError');

/**
 * Anything that keeps durable-turns from reaching a Temporal server: no CLI, a dev server that
 * died or never became ready, an unreachable `TEMPORAL_ADDRESS`, a bad connection setting.
 * Messages always say how to fix it.
 *
 * The `Symbol.for` marker lets `isInstance` work across copies of this module (a bundled worker
 * and the app can load two), where `instanceof` would not.
 */
export class TemporalSetupError extends DurableTurnsError {
  readonly [marker] = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, { code: 'temporal-setup', ...options });
    this.name = 'TemporalSetupError';
  }

  static override isInstance(value: unknown): value is TemporalSetupError {
    return hasMarker(value, marker);
  }
}
