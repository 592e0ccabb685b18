import { isGrpcServiceError, ServiceError } from '@temporalio/client';

/** What callers read of a gRPC error. */
export interface GrpcErrorInfo {
  code: number;
  details: string;
  message: string;
}

/** gRPC codes for a request the server did not answer in time or at all: DEADLINE_EXCEEDED, UNAVAILABLE. */
const notAnsweredCodes = new Set([4, 14]);

/** The gRPC error behind a Temporal client error: the error itself, or the cause of a `ServiceError`. */
export function grpcErrorOf(error: unknown): GrpcErrorInfo | undefined {
  if (isGrpcServiceError(error)) return error;
  return error instanceof ServiceError && isGrpcServiceError(error.cause) ? error.cause : undefined;
}

/**
 * The server (or the worker it asked) did not answer: a query that timed out before a busy worker
 * took it, a server restarting. Worth asking again, unlike a turn that does not exist.
 */
export function serverDidNotAnswer(error: unknown): boolean {
  const grpc = grpcErrorOf(error);
  return grpc !== undefined && notAnsweredCodes.has(grpc.code);
}
