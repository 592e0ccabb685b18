import { DurableTurnsError, hasMarker } from '../../core/errors/durable-turns-error';

/**
 * Journal errors carry a `Symbol.for` marker so `isInstance` works across module copies (the
 * worker and the bundled workflow code may each load their own copy).
 */
const marker = Symbol.for('durable-turns.journal-error');

export type JournalErrorCode = 'lease-held' | 'stale-fence' | 'version-conflict' | 'lease-released';

export class JournalError extends DurableTurnsError {
  readonly [marker] = true;
  declare readonly code: JournalErrorCode;
  constructor(code: JournalErrorCode, message: string) {
    super(message, { code });
    this.name = 'JournalError';
  }

  static override isInstance(error: unknown): error is JournalError {
    return hasMarker(error, marker);
  }

  static leaseHeld(turnId: string, holder: string, until: number): JournalError {
    return new JournalError(
      'lease-held',
      `turn ${turnId} is owned by ${holder} until ${new Date(until).toISOString()}; ` +
        'wait for the lease to lapse, or resume with takeOver: true if that host is gone',
    );
  }

  static staleFence(turnId: string, token: number, current: number): JournalError {
    return new JournalError(
      'stale-fence',
      `turn ${turnId}: fencing token ${token} is stale (current ${current}); another host took the turn over`,
    );
  }

  static versionConflict(turnId: string, expected: number, actual: number): JournalError {
    return new JournalError(
      'version-conflict',
      `turn ${turnId}: expected journal version ${expected} but it is ${actual}; reload before appending`,
    );
  }

  static released(turnId: string): JournalError {
    return new JournalError('lease-released', `turn ${turnId}: this journal session was released`);
  }
}
