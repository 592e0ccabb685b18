import type { AttemptResult } from '../schema/attempt-result';
import { stableHash } from './stable-hash';

/** An error output. Most are hashed with their type, so two kinds of failure with one text differ. */
export function errorOutput(
  errorType: string,
  content: string,
  retryable: boolean,
  hashed: string = `${errorType}:${content}`,
): Extract<AttemptResult, { status: 'error' }> {
  return { status: 'error', content, errorType, retryable, resultHash: stableHash(hashed) };
}

/** The attempt did not finish (or did not say how it finished): `why` is told to the model. */
export function interruptedOutput(why: string, errorType = 'cancelled'): AttemptResult {
  return { status: 'interrupted', content: `interrupted: ${why}`, errorType };
}
