/** An error's message with its cause's: Temporal's own errors say the useful part in the cause. */
export function reasonOf({ error }: { error: unknown }): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}
