import type {
  AnyTool,
  ApprovalConfigInput,
  ApprovalGrantInput,
  Approver,
  Budget,
  CompactionConfigInput,
  DetectionConfig,
  DispatchConfig,
  ForkPoint,
  LimitsConfig,
  RetryPolicyInput,
  StructuredOutputInput,
  TimeoutsConfig,
  ToolHealthRegistry,
  ToolLister,
  ToolOutput,
  TurnHooks,
  TurnInput,
  TurnModel,
  TurnObserver,
  TurnResult,
  TurnWatchEvent,
} from 'durable-turns';

/** One turn as a conformance case describes it; each executor runs it its own way. */
export interface TurnSpec {
  turnId: string;
  input: TurnInput;
  tools: AnyTool[];
  /** Servers that list tools at run time (MCP), pinned per turn. */
  mcp?: ToolLister;
  model: TurnModel;
  dispatch?: Partial<DispatchConfig>;
  budget?: Budget;
  detection?: Partial<DetectionConfig>;
  hooks?: TurnHooks[];
  observers?: TurnObserver[];
  health?: ToolHealthRegistry;
  approver?: Approver;
  approvals?: ApprovalConfigInput;
  modelRetry?: RetryPolicyInput;
  timeouts?: Partial<TimeoutsConfig>;
  limits?: Partial<LimitsConfig>;
  compaction?: CompactionConfigInput;
  /** A structured answer (a zod schema or a JSON Schema; see `OutputConfig`). */
  output?: StructuredOutputInput;
  /** The turn is a fork of an earlier case's finished turn (its input is that turn's). */
  fork?: { from: string; at: ForkPoint; outputs?: Record<string, ToolOutput>; message?: string };
}

export interface RunningTurn {
  result: Promise<TurnResult>;
  cancel(reason?: string): Promise<void>;
  /** Sends a user message into the running turn (see `TurnEngine.onSteer`). */
  steer(messageId: string, text: string): Promise<void>;
  /** "Always allow" (see `ApprovalGrant`); rejects with the turn's refusal. */
  grant(grant: ApprovalGrantInput): Promise<void>;
  revoke(grantId: string): Promise<void>;
  /** The turn's progress as its executor's `watch` gives it (consume it while the turn runs). */
  watch(options?: { after?: number; live?: boolean }): AsyncGenerator<TurnWatchEvent>;
}

/** A conversation as a conformance case describes it: each of its turns runs with these. */
export interface ConversationSpec {
  conversationId: string;
  tools: AnyTool[];
  /** Servers that list tools at run time (MCP), pinned per turn. */
  mcp?: ToolLister;
  model: TurnModel;
}

/** A conversation under way, one message at a time. */
export interface RunningConversation {
  /** Sends a message, and returns its turn's result once the conversation has heard of its end. */
  say(messageId: string, text: string): Promise<TurnResult>;
  /** Closes it, and stops what ran it. */
  end(): Promise<void>;
}

/** An executor under test: the in-process one, or turns on Temporal. */
export interface ConformanceHarness {
  name: string;
  start(spec: TurnSpec): Promise<RunningTurn>;
  /** A conversation (`InProcessConversations` in process, `ConversationClient` on Temporal). */
  converse(spec: ConversationSpec): Promise<RunningConversation>;
}

export async function runSpec(harness: ConformanceHarness, spec: TurnSpec): Promise<TurnResult> {
  return (await harness.start(spec)).result;
}
