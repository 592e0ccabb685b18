import { isGrpcServiceError } from '@temporalio/client';

/** What went wrong, with the cause an SDK error wraps (`Failed to list workflows: 12 UNIMPLEMENTED: …`). */
export function reasonOf({ error }: { error: unknown }): string {
  if (isGrpcServiceError(error)) return error.details || error.message;
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause === undefined) return message;
  const inner = isGrpcServiceError(cause)
    ? cause.message
    : cause instanceof Error
      ? cause.message
      : String(cause);
  return inner === message ? message : `${message}: ${inner}`;
}
