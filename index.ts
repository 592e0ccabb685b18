/**
 * durable-turns: what a user needs to define tools, run turns in process, keep their journals and
 * plug in models. Running turns on Temporal is `durable-turns/worker` and `durable-turns/client`; the
 * embedded dev server is `durable-turns/devserver`; the SQLite journal is `durable-turns/sqlite`.
 *
 * The engine's reducers, planners, detectors and hashes are deliberately not exported: they are the
 * rules both executors share, and they change between releases without notice.
 */

// Conversations
export {
  type ChatConversations,
  type ChatDecision,
  ConversationRefusedError,
  type ConversationState,
  type ConversationWatchEvent,
  type ConversationWatchOptions,
  type MessageReceipt,
  type SendPolicy,
} from './core/conversation';
export { maxRefusedDecisions } from './core/engine/approvals';
export type { ApprovalRequest } from './core/engine/engine-types';
export { type ForkEdits, type ForkPoint, forkPointSchema, forkPrefix } from './core/engine/fork-turn';
export type { CallOutcome, TurnOutcome, TurnResult } from './core/engine/turn-outcome';
export { transcriptProblems } from './core/engine/validate-transcript';
// Models
export { DurableTurnsError } from './core/errors/durable-turns-error';
export {
  type HealthStatus,
  type ToolHealthOptions,
  ToolHealthRegistry,
  type ToolHealthSnapshot,
} from './core/health/tool-health-registry';
export type {
  ConversationHooks,
  PromptDecision,
  PromptSubmitContext,
  SessionEndContext,
  TurnEndContext,
} from './core/hooks/conversation-hooks';
// Hooks, observers, tool health
export type {
  HookErrorPolicy,
  PostToolDecision,
  PreToolDecision,
  ToolHookContext,
  TurnHooks,
} from './core/hooks/turn-hooks';
export type { ModelDeltaEvent, ToolPostEvent, ToolPreEvent, TurnObserver } from './core/hooks/turn-observer';
export {
  ModelError,
  type ModelRequest,
  type ModelStreamPart,
  type ToolSpec,
  type TurnModel,
} from './core/model/turn-model';
export {
  type ApprovalDecision,
  type ApprovalDecisionInput,
  approvalDecisionSchema,
  type DecisionVia,
  type LegacyDecision,
  maxRespondChars,
} from './core/schema/approval-decision';
export {
  type ApprovalGrant,
  type ApprovalGrantInput,
  type ArgumentMatcher,
  approvalGrantSchema,
  type GrantRevocation,
  grantRevocationSchema,
} from './core/schema/approval-grant';
export {
  isTranscriptEvent,
  type JournalEntry,
  journalEntrySchema,
  type TranscriptEvent,
} from './core/schema/journal-entry';
export type { ListedTool, ListedToolset } from './core/schema/listed-toolset';
export {
  type BlobRef,
  describeFile,
  type FileData,
  type FilePart,
  filePartSchema,
} from './core/schema/media';
// Turns: input, configuration, outcome
export {
  type AssistantMessage,
  type Message,
  messageSchema,
  type ReasoningPart,
  type SystemMessage,
  type TextPart,
  type ToolCallPart,
  type ToolMessage,
  type ToolResultPart,
  type TurnInput,
  turnInputSchema,
  type UserMessage,
} from './core/schema/messages';
export { outputConfigOf, type StructuredOutputInput } from './core/schema/output-schema';
export type { CallPolicy, PreparedCall } from './core/schema/prepared-call';
export { type ProviderMetadata, providerMetadataSchema } from './core/schema/provider-metadata';
export { type RetryPolicy, type RetryPolicyInput, retryPolicySchema } from './core/schema/retry-policy';
export {
  renderToolOutput,
  type ToolOutput,
  type ToolOutputStatus,
  toolOutputSchema,
  toolOutputStatusSchema,
} from './core/schema/tool-output';
export {
  type ApprovalConfig,
  type ApprovalConfigInput,
  type Budget,
  type CompactionConfig,
  type CompactionConfigInput,
  type ConvergenceConfig,
  type DetectionConfig,
  type DispatchConfig,
  type LimitsConfig,
  type OutputConfig,
  type OutputConfigInput,
  outputConfigSchema,
  type TimeoutsConfig,
  type TurnConfig,
  type TurnConfigInput,
  turnConfigSchema,
} from './core/schema/turn-config';
export { assertTurnId, conversationIdSchema, turnIdSchema } from './core/schema/turn-id';
export { type HaltReason, type TurnStatus, turnStatusSchema } from './core/schema/turn-status';
export type { Usage } from './core/schema/usage';
export { type AgentToolOptions, agentTool } from './core/tools/agent-tool';
// Tools
export {
  type AnyTool,
  defineTool,
  type ToolContext,
  type ToolDefinition,
  type ToolSession,
} from './core/tools/define-tool';
export type { ToolLister } from './core/tools/listed-tools';
export { NonRetryableToolError } from './core/tools/run-tool-attempt';
export {
  type SubAgentAnswer,
  type SubAgentRun,
  type SubAgents,
  subAgentTurnId,
} from './core/tools/sub-agents';
export { type ToolFile, withFiles } from './core/tools/tool-files';
// Watching a turn (the same events in process and on Temporal)
export type { LiveChannelName, ProgressEntry, TurnWatchEvent } from './core/watch/turn-watch-event';
export { ChatApprovals } from './executors/conversation/chat-approvals';
export {
  ConversationConflictError,
  type ConversationStore,
} from './executors/conversation/conversation-store';
export { inProcessChatConversations } from './executors/conversation/in-process-chat-conversations';
export {
  InProcessConversations,
  type InProcessConversationsOptions,
  type InProcessSendOptions,
} from './executors/conversation/in-process-conversations';
export { MemoryConversationStore } from './executors/conversation/memory-conversation-store';
export type { ForkTurnArgs } from './executors/forked-run';
// The in-process executor and its journals
export {
  InProcessExecutor,
  type InProcessExecutorOptions,
  type InProcessWatchOptions,
  type RunTurnArgs,
} from './executors/in-process-executor';
export { JournalError, type JournalErrorCode } from './executors/journal/journal-errors';
export { MemoryJournal } from './executors/journal/memory-journal';
export type { JournalSession, OpenJournalArgs, TurnJournal } from './executors/journal/turn-journal';
export type { Approver, ApproverAnswer } from './executors/turn-host';
export { type AiSdkModelOptions, aiSdkModel } from './models/ai-sdk-model';
export { createModel } from './models/create-model';
export { type ModelConfig, modelConfigSchema, type ResolvedModelConfig } from './models/model-config';
export {
  type ScriptedCall,
  type ScriptedModel,
  type ScriptedModelOptions,
  type ScriptedPart,
  type ScriptedResponse,
  type ScriptedStep,
  scriptedModel,
} from './models/scripted-model';
export type { SupportedLanguageModel } from './models/supported-language-model';
