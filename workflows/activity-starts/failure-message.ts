import { ActivityFailure } from '@temporalio/workflow';

/** The useful message of an activity's failure: Temporal wraps the activity's own in its cause. */
export function failureMessage(error: unknown): string {
  if (error instanceof ActivityFailure && error.cause) return error.cause.message;
  return error instanceof Error ? error.message : String(error);
}
