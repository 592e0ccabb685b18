import type { ConversationHooks, SendPolicy } from '../../core';
import type { InProcessExecutor } from '../in-process-executor';
import type { ConversationStore } from './conversation-store';

export interface InProcessConversationsOptions {
  /** Runs the conversations' turns: its tools, model, configuration and turn journal. */
  executor: InProcessExecutor;
  /**
   * Where each conversation's queue is kept (default: this process's memory). A
   * `SqliteConversationStore` beside a `SqliteJournal` lets `resume` carry a conversation on after a crash.
   */
  store?: ConversationStore;
  /** Hooks on the conversations' lives (see `ConversationHooks`), run in order. */
  hooks?: readonly ConversationHooks[];
  /** Told of a hook that threw under `onError: 'warn'` (default: `console.warn`). */
  onHookWarning?: (warning: string) => void;
}

export interface InProcessSendOptions {
  /** The message's id: a retried send with the same id is the same message (never a second turn). */
  messageId: string;
  /** What the message does while a turn runs (see `SendPolicy`); default `enqueue`. */
  policy?: SendPolicy;
}
