import { DurableTurnsError, hasMarker } from '../core/errors/durable-turns-error';
import { exitCodes } from './exit-codes';

const marker = Symbol.for('durable-turns.cli-error');

/** An error the CLI reports as its message alone (no stack), exiting with `exitCode`. */
export class CliError extends DurableTurnsError {
  readonly [marker] = true;
  readonly exitCode: number;

  constructor(
    message: string,
    { exitCode = exitCodes.error, cause }: { exitCode?: number; cause?: unknown } = {},
  ) {
    super(message, { code: exitCode === exitCodes.usage ? 'cli-usage' : 'cli-error', cause });
    this.name = 'CliError';
    this.exitCode = exitCode;
  }

  static override isInstance(error: unknown): error is CliError {
    return hasMarker(error, marker);
  }
}
