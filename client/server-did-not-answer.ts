import { isGrpcServiceError, ServiceError } from '@temporalio/client';

/** gRPC codes for a request the server did not answer in time or at all: DEADLINE_EXCEEDED, UNAVAILABLE. */
const notAnsweredCodes = new Set([4, 14]);

/**
 * The server (or the worker it asked) did not answer: a query that timed out before a busy worker
 * took it, a server restarting. Worth asking again, unlike a turn that does not exist.
 */
export function serverDidNotAnswer(error: unknown): boolean {
  const grpc = isGrpcServiceError(error)
    ? error
    : error instanceof ServiceError && isGrpcServiceError(error.cause)
      ? error.cause
      : undefined;
  return grpc !== undefined && notAnsweredCodes.has(grpc.code);
}
