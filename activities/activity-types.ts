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
  callModel(input: CallModelInput): Promise<ModelResponse>;
  runTool(input: RunToolInput): Promise<RunToolOutput>;
}
