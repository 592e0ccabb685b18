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

/** FAILED_PRECONDITION, as the server refuses a query when no worker has polled the queue lately. */
const failedPrecondition = 9;

/**
 * The server (or the worker it asked) did not answer: a query that timed out before a busy worker
 * took it, a server restarting. Worth asking again, unlike a turn that does not exist.
 */
export function serverDidNotAnswer(error: unknown): boolean {
  const grpc = grpcErrorOf(error);
  return grpc !== undefined && notAnsweredCodes.has(grpc.code);
}

/**
 * The server refused a query because no worker polled the turn's queue lately: the worker is
 * restarting, or too busy to poll. Worth asking again for a while, as a watcher does.
 */
export function noWorkerPolled(error: unknown): boolean {
  const grpc = grpcErrorOf(error);
  return grpc?.code === failedPrecondition && /no poller seen/i.test(grpc.details);
}
