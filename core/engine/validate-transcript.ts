import type { Message } from '../schema/messages';

/**
 * Checks that a transcript is valid for the next provider request: every tool call of an assistant
 * message is answered exactly once, in the tool message that follows it, and no result answers a
 * call that was not made. Returns the problems found (empty when valid).
 */
export function transcriptProblems(messages: readonly Message[]): string[] {
  const problems: string[] = [];
  messages.forEach((message, index) => {
    if (message.role === 'assistant') {
      const calls = message.content.filter((p) => p.type === 'tool-call').map((p) => p.toolCallId);
      if (calls.length === 0) return;
      const next = messages[index + 1];
      if (next?.role !== 'tool') {
        problems.push(`message ${index}: ${calls.length} tool call(s) with no tool message after them`);
        return;
      }
      const answered = next.content.map((p) => p.toolCallId);
      const missing = calls.filter((id) => !answered.includes(id));
      const extra = answered.filter((id) => !calls.includes(id));
      const repeated = answered.filter((id, i) => answered.indexOf(id) !== i);
      if (missing.length) problems.push(`message ${index}: calls without a result: ${missing.join(', ')}`);
      if (extra.length)
        problems.push(`message ${index + 1}: results for calls not made: ${extra.join(', ')}`);
      if (repeated.length)
        problems.push(`message ${index + 1}: calls answered twice: ${repeated.join(', ')}`);
    }
    if (message.role === 'tool') {
      const previous = messages[index - 1];
      if (previous?.role !== 'assistant')
        problems.push(`message ${index}: tool results not after an assistant message`);
    }
  });
  return problems;
}
