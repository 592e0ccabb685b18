import { formatIssues } from '../schema/format-issues';
import type { JournalEntry } from '../schema/journal-entry';
import { jsonSchemaChecker } from '../schema/json-schema-check';
import type { OutputConfig } from '../schema/turn-config';
import type { TurnState } from './turn-state';

/**
 * The model answered without calls. A turn with an output schema ends only with an answer that
 * parses and matches it: one that does not is asked again (`output.rejected`, its message says
 * what was wrong), at most `maxRetries` times; then the turn fails with the validation errors.
 */
export function answerEntry(state: TurnState): JournalEntry {
  const output = state.config.output;
  if (!output) return { type: 'turn.finished', status: 'completed' };
  const checked = checkAnswer(output, lastAnswerText(state));
  if (checked.ok) return { type: 'turn.finished', status: 'completed', output: checked.value };
  const answers = (state.outputRejections ?? 0) + 1;
  // A schema the turn cannot read refuses every answer: asking again would not help.
  if ('unreadable' in checked) return { type: 'turn.finished', status: 'failed', reason: checked.issues };
  if (answers > output.maxRetries)
    return {
      type: 'turn.finished',
      status: 'failed',
      reason: `the answer did not match the output schema after ${answers} answer${answers === 1 ? '' : 's'}: ${checked.issues}`,
    };
  return {
    type: 'output.rejected',
    responseIndex: state.responseIndex - 1,
    issues: checked.issues,
    message: {
      role: 'user',
      content: `Your answer does not match the required output schema: ${checked.issues}. Answer again with only the JSON value, matching the schema.`,
    },
  };
}

type Checked = { ok: true; value: unknown } | { ok: false; issues: string; unreadable?: true };

function checkAnswer(output: OutputConfig, text: string): Checked {
  const checker = jsonSchemaChecker(output.schema);
  if (typeof checker === 'string')
    return { ok: false, issues: `the output schema cannot be read: ${checker}`, unreadable: true };
  let value: unknown;
  try {
    value = JSON.parse(withoutFence(text));
  } catch (error) {
    return { ok: false, issues: `the answer is not JSON (${(error as Error).message})` };
  }
  const parsed = checker.safeParse(value);
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, issues: formatIssues(parsed.error, { root: 'answer' }) };
}

/** Models often wrap JSON in a Markdown fence even when told not to: the fence is not the answer. */
function withoutFence(text: string): string {
  const fenced = /^\s*```[a-zA-Z]*\s*\n([\s\S]*?)\n?```\s*$/.exec(text);
  return (fenced?.[1] ?? text).trim();
}

function lastAnswerText(state: TurnState): string {
  for (let i = state.messages.length - 1; i >= 0; i--) {
    const message = state.messages[i];
    if (message?.role !== 'assistant') continue;
    return message.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
  }
  return '';
}
