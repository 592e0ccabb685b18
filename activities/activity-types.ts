import type { AttemptResult, ModelResponse, PreparedCall } from '../core';

export interface CallModelInput {
  turnId: string;
  /** The workflow to read the transcript from (by query), so it never travels as activity input. */
  workflowId: string;
  responseIndex: number;
  model: string;
}

export interface RunToolInput {
  turnId: string;
  call: PreparedCall;
  attempt: number;
  approved: boolean;
  maxOutputBytes: number;
}

export interface RunToolOutput {
  result: AttemptResult;
  durationMs: number;
}

/** The activities a turn workflow calls; the worker makes them with `createActivities`. */
export interface TurnActivities {
  callModel(input: CallModelInput): Promise<CallModelOutput>;
  runTool(input: RunToolInput): Promise<RunToolOutput>;
}

/**
 * The model activity's result. The first `streamedCallCount` calls were handed to the workflow
 * by update while the response streamed and are left out here, so each enters history once.
 */
export interface CallModelOutput extends ModelResponse {
  streamedCallCount: number;
}
