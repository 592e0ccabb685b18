export { captureMessageContentFromEnv } from './capture-message-content';
export { genAi, genAiOperation, turnAttributes } from './gen-ai-attributes';
export { spanProcessorsFromEnv } from './span-processors-from-env';
export { traceModelRequest } from './trace-model-request';
export { traceToolAttempt } from './trace-tool-attempt';
export { traceTurn } from './trace-turn';
export { turnClientInterceptors } from './turn-client-interceptors';
export { type CreateTurnTracingOptions, createTurnTracing, type TurnTracing } from './turn-tracing';
export { turnTracingFromEnv } from './turn-tracing-from-env';
export { workerTracingOptions } from './worker-tracing-options';
/** For `Worker.runReplayHistory` of turn workflows: the sink their bundle calls. */
export { workflowSpanSinks } from './workflow-span-sink';
