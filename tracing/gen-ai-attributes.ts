/**
 * Attribute names of the OpenTelemetry GenAI semantic conventions (development status, as of
 * semconv 1.37+: `gen_ai.provider.name`, `gen_ai.input.messages` …), and ours under `durable_turns.`.
 * Written out rather than imported: `@opentelemetry/semantic-conventions` keeps them in its
 * `incubating` entry point, which may rename them in any minor release.
 */
export const genAi = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  responseFinishReasons: 'gen_ai.response.finish_reasons',
  usageInputTokens: 'gen_ai.usage.input_tokens',
  usageOutputTokens: 'gen_ai.usage.output_tokens',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  toolName: 'gen_ai.tool.name',
  toolType: 'gen_ai.tool.type',
  toolCallId: 'gen_ai.tool.call.id',
  toolCallArguments: 'gen_ai.tool.call.arguments',
  toolCallResult: 'gen_ai.tool.call.result',
  conversationId: 'gen_ai.conversation.id',
  errorType: 'error.type',
} as const;

/** The values of `gen_ai.operation.name` we emit. */
export const genAiOperation = { chat: 'chat', executeTool: 'execute_tool' } as const;

export const turnAttributes = {
  turnId: 'durable_turns.turn.id',
  turnStatus: 'durable_turns.turn.status',
  responseIndex: 'durable_turns.response.index',
  toolAttempt: 'durable_turns.tool.attempt',
  toolStatus: 'durable_turns.tool.status',
  /** Calls of the response (they go on as `execute_tool` spans of their own). */
  toolCallCount: 'durable_turns.response.tool_calls',
} as const;
