import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { ConversationClient } from '../../client/conversation-client';
import type { TurnClient } from '../../client/turn-client';
import { ConversationRefusedError, type MessageReceipt, type SendPolicy, sendPolicySchema } from '../../core';
import { approverName } from '../approver-name';
import { exitCodes } from '../exit-codes';
import type { Output } from '../output';
import type { CommandContext } from '../render/answer-commands';
import { followConversation } from './follow-conversation';

const help = [
  'type a message and Enter to send it; while a turn runs it steers it (see --policy)',
  '/cancel                  cancel the running turn (its calls get true outputs)',
  '/approve <call> [why]    approve a call that waits for approval',
  '/reject <call> [why]     reject it',
  "/respond <call> <text>   answer it in the tool's place (the tool does not run)",
  '/policy <policy>         what a message typed while a turn runs does: steer, enqueue, interrupt, reject',
  '/close                   close the conversation (what waits is dropped)',
  '/quit                    leave; the conversation and its running turn go on',
];

/**
 * An interactive conversation on a terminal (or any input, a line a message): each line is sent
 * (`ConversationClient.send`), its turns are shown as they run, across turn boundaries, and lines
 * beginning with `/` are commands. At the end of its input it waits for the conversation to be idle,
 * so a script can pipe messages in; `/quit` (or Ctrl-C) leaves at once.
 */
export async function runChat({
  client,
  conversationId,
  model,
  policy: initialPolicy,
  output,
  context,
  input = process.stdin,
}: {
  client: TurnClient;
  conversationId: string;
  model: string;
  policy: SendPolicy;
  output: Output;
  context: CommandContext;
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
}): Promise<number> {
  const conversations = new ConversationClient(client);
  const terminal = Boolean(input.isTTY);
  const lines = createInterface({ input, output: process.stdout, terminal, prompt: '> ' });
  /** A typed line is being handled: its prompt comes back once it is done, not after each print. */
  let handling = false;
  const print = (shown: readonly string[]) => {
    if (shown.length === 0) return;
    // Above the line being typed, which is drawn again after.
    if (terminal) process.stdout.write('\r\x1b[K');
    for (const line of shown) output.result(line);
    if (terminal && !handling) lines.prompt(true);
  };
  let policy = initialPolicy;
  let shownUpTo = 0;
  const following = new AbortController();
  const follower = followConversation({
    conversations,
    conversationId,
    print,
    colors: output.resultColors,
    context,
    signal: following.signal,
    onTurnShown: (n) => {
      shownUpTo = n;
    },
  }).catch((error: unknown) => print([`stopped showing the conversation: ${String(error)}`]));
  let quit = false;
  lines.on('SIGINT', () => {
    quit = true;
    lines.close();
  });

  const runningTurn = async () =>
    (await conversations.state(conversationId).catch(() => undefined))?.running?.turnId;
  const receiptLine = (receipt: MessageReceipt): string => {
    if (receipt.status === 'started') return `→ turn ${receipt.turnId}`;
    if (receipt.status === 'steered')
      return `→ steered into ${receipt.turnId}: it reads it at its next request`;
    if (receipt.status === 'queued')
      return `→ queued: ${receipt.ahead} turn${receipt.ahead === 1 ? '' : 's'} ahead of it`;
    if (receipt.status === 'dropped') return '→ dropped: the conversation was closed before it ran';
    return `→ ${receipt.status}`;
  };
  const command = async (text: string): Promise<void> => {
    const [name = '', first, ...rest] = text.slice(1).trim().split(/\s+/);
    const reason = rest.join(' ') || undefined;
    if (name === 'help') return print(help);
    if (name === 'quit') {
      quit = true;
      lines.close();
      return;
    }
    if (name === 'policy') {
      const parsed = sendPolicySchema.safeParse(first);
      if (!parsed.success) return print(['/policy takes steer, enqueue, interrupt or reject']);
      policy = parsed.data;
      return print([
        `a message typed while a turn runs now ${policy === 'steer' ? 'steers it' : `is sent with policy ${policy}`}`,
      ]);
    }
    if (name === 'close') {
      const { dropped } = await conversations.close(conversationId);
      return print([
        `conversation ${conversationId} closed${dropped.length > 0 ? `; dropped ${dropped.join(', ')}` : ''}`,
      ]);
    }
    const turnId = await runningTurn();
    if (name === 'cancel' || name === 'approve' || name === 'reject' || name === 'respond') {
      if (!turnId) return print(['no turn is running']);
      const handle = client.attach(turnId);
      if (name === 'cancel') {
        await handle.cancel();
        return print([`cancelling ${turnId}`]);
      }
      if (!first) return print([`/${name} takes the call's id (shown with the call that waits)`]);
      // The chat is the CLI's: its decisions come from the terminal's user, as `approve` does.
      const by = approverName();
      const who = { via: 'cli' as const, ...(by !== undefined && { by }) };
      if (name === 'respond') {
        // Its words after the call's id are the text, not a reason.
        const text = reason;
        if (!text) return print(["/respond takes the call's id and the text that becomes its output"]);
        await handle.respond(first, text, who);
        return print([`answered ${first}`]);
      }
      await (name === 'approve'
        ? handle.approve(first, { ...who, ...(reason && { reason }) })
        : handle.reject(first, { ...who, ...(reason && { reason }) }));
      return print([`${name === 'approve' ? 'approved' : 'rejected'} ${first}`]);
    }
    print([`unknown command /${name}; /help lists them`]);
  };

  print([
    `conversation ${conversationId} (model ${model}); a message typed while a turn runs ${policy === 'steer' ? 'steers it' : `is sent with policy ${policy}`}; /help for commands`,
  ]);
  if (terminal) lines.prompt();
  for await (const line of lines) {
    const text = line.trim();
    handling = true;
    try {
      if (text.startsWith('/')) await command(text);
      else if (text !== '') {
        const receipt = await conversations.send(conversationId, text, {
          messageId: `chat-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`,
          policy,
          turn: { model },
        });
        print([receiptLine(receipt)]);
      }
    } catch (error) {
      print([ConversationRefusedError.isInstance(error) ? error.message : `failed: ${String(error)}`]);
    }
    handling = false;
    if (quit) break;
    if (terminal) lines.prompt();
  }
  if (!quit) {
    // The input ended (a script): wait until the conversation is idle and its last turn was shown.
    for (;;) {
      const state = await conversations.state(conversationId).catch(() => undefined);
      const idle = !state || (!state.running && state.next.length === 0 && state.queue.length === 0);
      if (idle && shownUpTo >= (state?.turnCount ?? 0)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  following.abort();
  await follower;
  lines.close();
  // A terminal's input would hold the process open after the chat.
  if (input === process.stdin) process.stdin.destroy();
  if (quit)
    print([
      `left; the conversation goes on: \`${context.prefix} chat --conversation ${conversationId} --model ${model}\` comes back to it`,
    ]);
  return exitCodes.ok;
}
