import {
  AbstractChat,
  type ChatState,
  type ChatStatus,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from 'ai';

/** The state `useChat` keeps in React, kept in plain fields (the AI SDK's own framework-free shape). */
class PlainChatState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready';
  error: Error | undefined = undefined;
  constructor(public messages: UIMessage[] = []) {}
  pushMessage = (message: UIMessage) => {
    this.messages = [...this.messages, message];
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (index: number, message: UIMessage) => {
    this.messages = [...this.messages.slice(0, index), message, ...this.messages.slice(index + 1)];
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

/**
 * A chat client as `useChat` runs one, without React: the AI SDK's own `AbstractChat` and
 * `DefaultChatTransport` against `api`, answering approvals in a new request the way a page
 * configured with `sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses` does.
 */
export class NodeChat extends AbstractChat<UIMessage> {
  constructor({
    api,
    id,
    messages,
    fetch,
  }: {
    api: string;
    id: string;
    messages?: UIMessage[];
    /** A route called in this process, without a server. */
    fetch?: typeof globalThis.fetch;
  }) {
    super({
      id,
      transport: new DefaultChatTransport({ api, ...(fetch ? { fetch } : {}) }),
      state: new PlainChatState(messages),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
  }

  /**
   * Resolves once `check` holds of the chat while it is not sending or streaming (it polls: the chat
   * has no event for it); the test's own timeout bounds the wait.
   */
  async until(check: (chat: NodeChat) => boolean): Promise<void> {
    while (this.status === 'submitted' || this.status === 'streaming' || !check(this))
      await new Promise((resolve) => setTimeout(resolve, 20));
  }

  /** The last message, which must be the assistant's. */
  get answer(): UIMessage {
    const last = this.messages[this.messages.length - 1];
    if (last?.role !== 'assistant') throw new Error('the chat has no answer yet');
    return last;
  }
}
