import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { grpcErrorOf, serverDidNotAnswer } from '../client/server-did-not-answer';
import { DurableTurnsError } from '../core';
import { ApiError } from './api-error';

export interface UpstreamContext {
  address: string;
  namespace: string;
}

/**
 * A Temporal client error as the API answers it: an unknown turn is a 404, a call that is not
 * waiting for a decision a 409, a server that does not answer a 503 naming its address.
 */
export function upstreamError({
  error,
  context,
  turnId,
}: {
  error: unknown;
  context: UpstreamContext;
  turnId?: string;
}): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof WorkflowNotFoundError)
    return new ApiError(
      404,
      `no turn ${turnId ?? error.workflowId} in namespace ${context.namespace}; GET /api/turns lists the turns there`,
    );
  if (error instanceof WorkflowUpdateFailedError)
    return new ApiError(409, error.cause?.message ?? error.message);
  // The client refused to send a decision on to a sub-agent (which call, or not the call shown).
  if (DurableTurnsError.isInstance(error) && refusedDecisions.has(error.code))
    return new ApiError(409, error.message);
  const grpc = grpcErrorOf(error);
  if (grpc && serverDidNotAnswer(grpc))
    return new ApiError(
      503,
      `cannot reach Temporal at ${context.address} (namespace ${context.namespace}): ${grpc.details || grpc.message}; check the server is up there`,
    );
  // INVALID_ARGUMENT: what the caller sent reached the server malformed, e.g. a forged cursor.
  if (grpc?.code === 3)
    return new ApiError(400, `Temporal refused the request as malformed: ${grpc.details || grpc.message}`);
  if (grpc?.code === 5)
    return new ApiError(
      404,
      `no turn ${turnId ?? '?'} in namespace ${context.namespace}; GET /api/turns lists the turns there`,
    );
  const message = error instanceof Error ? error.message : String(error);
  return new ApiError(502, `Temporal at ${context.address} refused: ${message}`);
}

/** The client's refusals of a decision it was to send on to a sub-agent (see `TurnHandle.decide`). */
const refusedDecisions = new Set(['ambiguous-call', 'call-not-as-shown']);
