import type { PreparedCall } from '../../core';
import { callLabel } from './call-label';
import { jsonPreview } from './json-preview';

/** Room for the arguments in a tool attempt's summary; the whole line stays near 200 characters. */
const argumentChars = 120;

/**
 * What a tool attempt's activity shows in the Temporal Web UI instead of a bare `runTool`: the
 * tool, the call id, the attempt when it is a retry, and the start of its arguments, e.g.
 * `read_file read_mon {"path":"notes/monday.md"}`. It is stored in the activity's scheduled
 * event, so it is kept short: history grows by it for every attempt.
 */
export function toolSummary({ call, attempt }: { call: PreparedCall; attempt: number }): string {
  const retry = attempt > 1 ? ` (attempt ${attempt})` : '';
  return `${callLabel({ call })}${retry} ${jsonPreview({ value: call.input, maxChars: argumentChars })}`;
}
