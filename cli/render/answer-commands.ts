/** How the CLI was pointed at the server, so a printed command reaches the same turn. */
export interface CommandContext {
  /** e.g. `durable-turns --address 127.0.0.1:7233` (only the flags that were given). */
  prefix: string;
}

/**
 * The exact commands that approve, reject or answer (in the tool's place) a call waiting for a
 * decision, and that approve it always (its tool's later calls in the turn too).
 */
export function answerCommands({
  context,
  turnId,
  toolCallId,
}: {
  context: CommandContext;
  turnId: string;
  toolCallId: string;
}): { approve: string; reject: string; respond: string; always: string } {
  const ids = `${shellQuote({ value: turnId })} ${shellQuote({ value: toolCallId })}`;
  return {
    approve: `${context.prefix} approve ${ids}`,
    reject: `${context.prefix} reject ${ids} --reason '…'`,
    respond: `${context.prefix} respond ${ids} '…'`,
    always: `${context.prefix} approve ${ids} --always`,
  };
}

/** Quotes a word for a POSIX shell when it holds anything a shell would read specially. */
export function shellQuote({ value }: { value: string }): string {
  return /^[A-Za-z0-9_.:/@+=-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}
