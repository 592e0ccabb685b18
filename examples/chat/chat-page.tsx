import { useChat } from '@ai-sdk/react';
import {
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from 'ai';
import { type FormEvent, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';

/**
 * The example's page: `useChat` against the durable-turns chat route. The chat's id is in the
 * address (`/chat/<id>`), so a reload finds the chat: the page reads its messages so far, then
 * resumes the running turn's stream (`resume: true`), which the route sends again from its start.
 */
function App() {
  const [chatId] = useState(() => {
    const match = /^\/chat\/([^/]+)$/.exec(location.pathname);
    if (match?.[1]) return decodeURIComponent(match[1]);
    const id = `chat-${crypto.randomUUID()}`;
    history.replaceState(null, '', `/chat/${id}`);
    return id;
  });
  const [initial, setInitial] = useState<UIMessage[] | undefined>();
  useEffect(() => {
    fetch(`/api/chat/${encodeURIComponent(chatId)}/messages`)
      .then((response) => (response.ok ? response.json() : []))
      .catch(() => [])
      .then((messages: UIMessage[]) => setInitial(messages));
  }, [chatId]);
  if (!initial) return <p>Loading…</p>;
  return <Chat id={chatId} initial={initial} />;
}

function Chat({ id, initial }: { id: string; initial: UIMessage[] }) {
  const { messages, sendMessage, addToolApprovalResponse, status, error } = useChat({
    id,
    messages: initial,
    resume: true,
    transport: new DefaultChatTransport({ api: '/api/chat' }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const [input, setInput] = useState('');
  // A message sent now would wait behind the turn, which waits for your decision: decide first.
  const awaitingYou = messages.some((message) =>
    message.parts.some((part) => part.type === 'dynamic-tool' && part.state === 'approval-requested'),
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (input.trim() === '') return;
    // For the example's measurements: when the page sent, and when it first showed the answer's text.
    marks.sentAt = Date.now();
    marks.firstTextAt = undefined;
    sendMessage({ text: input });
    setInput('');
  };
  useEffect(() => {
    const last = messages[messages.length - 1];
    if (marks.firstTextAt === undefined && last?.role === 'assistant' && textOf(last) !== '')
      marks.firstTextAt = Date.now();
  }, [messages]);
  return (
    <main>
      <h1>durable-turns chat</h1>
      {messages.map((message) => (
        <div key={message.id} className={`message ${message.role}`} data-role={message.role}>
          {shownParts(message).map((part, index) => (
            <Part
              // biome-ignore lint/suspicious/noArrayIndexKey: parts have no ids of their own
              key={index}
              part={part}
              decide={(approvalId, approved) => addToolApprovalResponse({ id: approvalId, approved })}
            />
          ))}
        </div>
      ))}
      {error && <p role="alert">{error.message}</p>}
      <form onSubmit={submit}>
        <input
          aria-label="message"
          value={input}
          onChange={(event) => setInput(event.target.value)}
          placeholder='Say something, or "deploy api"'
        />
        <button type="submit" disabled={status === 'submitted' || status === 'streaming' || awaitingYou}>
          Send
        </button>
      </form>
      <p className="status" data-status={status}>
        {status}
      </p>
    </main>
  );
}

type ShownPart = UIMessage['parts'][number];

function Part({
  part,
  decide,
}: {
  part: ShownPart;
  decide: (approvalId: string, approved: boolean) => void;
}) {
  if (part.type === 'text') return <span className="text">{part.text}</span>;
  if (part.type === 'data-outcome') {
    const { status } = part.data as { status: string };
    return (
      <div className="outcome" data-outcome={status}>
        turn {status}
      </div>
    );
  }
  if (part.type !== 'dynamic-tool') return null;
  return (
    <div className="tool" data-tool-state={part.state}>
      <strong>{part.toolName}</strong> <code>{JSON.stringify(part.input)}</code>
      {part.state === 'approval-requested' && (
        <div>
          <button type="button" onClick={() => decide(part.approval.id, true)}>
            Approve
          </button>
          <button type="button" onClick={() => decide(part.approval.id, false)}>
            Reject
          </button>
        </div>
      )}
      {part.state === 'output-available' && (
        <div className="output">
          {typeof part.output === 'string' ? part.output : JSON.stringify(part.output)}
        </div>
      )}
      {part.state === 'output-denied' && <div className="output">rejected</div>}
    </div>
  );
}

/** Parts to show: a `data-retracted` part hides the text or reasoning part it names, and itself. */
function shownParts(message: UIMessage): ShownPart[] {
  const hidden = new Set<number>();
  message.parts.forEach((part, index) => {
    if (part.type !== 'data-retracted') return;
    hidden.add(index);
    const { channel } = part.data as { channel: string };
    for (let before = index - 1; before >= 0; before--)
      if (message.parts[before]?.type === channel && !hidden.has(before)) {
        hidden.add(before);
        break;
      }
  });
  return message.parts.filter((_, index) => !hidden.has(index));
}

function textOf(message: UIMessage): string {
  return shownParts(message)
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('');
}

const marks: { sentAt?: number; firstTextAt?: number } = {};
(window as unknown as { chatMarks: typeof marks }).chatMarks = marks;

const root = document.getElementById('root');
if (root) createRoot(root).render(<App />);
