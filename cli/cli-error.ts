import { exitCodes } from './exit-codes';

/** An error the CLI reports as its message alone (no stack), exiting with `exitCode`. */
export class CliError extends Error {
  readonly exitCode: number;

  constructor(
    message: string,
    { exitCode = exitCodes.error, cause }: { exitCode?: number; cause?: unknown } = {},
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}
