import type { Colors } from '../output';
import { decisionText } from './decision-text';
import { formatMs } from './short-text';
import type { CallDisplay } from './turn-display';

const spinner = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** The mark before a call: its outcome once done, what it waits for otherwise. */
export function callMark({ call, colors, now }: { call: CallDisplay; colors: Colors; now: number }): string {
  if (call.phase === 'done' || call.status !== undefined) {
    if (call.status === 'ok') return colors.green('✔');
    if (call.status === 'error') return colors.red('✖');
    return colors.yellow('⊘');
  }
  if (call.phase === 'awaiting-approval') return colors.magenta('?');
  if (call.phase === 'running') return colors.cyan(spinner[Math.floor(now / 100) % spinner.length] ?? '•');
  if (call.phase === 'retry-wait') return colors.yellow('↻');
  return colors.dim('·');
}

/**
 * `ok · attempt 1 · 302 ms`, `running · attempt 2 · 1.4 s`, `awaiting approval`, `error: timeout`,
 * `ok · approved by alice, arguments edited · attempt 1`.
 */
export function callState({ call, now }: { call: CallDisplay; now: number }): string {
  const parts: string[] = [];
  if (call.status !== undefined) {
    parts.push(call.errorType ? `${call.status}: ${call.errorType}` : call.status);
  } else if (call.phase === 'awaiting-approval') {
    parts.push('awaiting approval');
  } else {
    parts.push(call.phase);
  }
  if (call.decision) parts.push(decisionText({ decision: call.decision, brief: true }));
  if (call.attempt > 0) parts.push(`attempt ${call.attempt}`);
  if (call.durationMs !== undefined) parts.push(formatMs({ ms: call.durationMs }));
  else if (call.phase === 'running' && call.startedAt !== undefined)
    parts.push(formatMs({ ms: Math.max(0, now - call.startedAt) }));
  return parts.join(' · ');
}
