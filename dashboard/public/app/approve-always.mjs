// "Approve always" beside a waiting call's Approve: the approval also gives a grant that lets the
// tool's later calls in this turn run without asking — every one, or only those whose argument at
// a path equals a value or matches a regex. Sent as the approval's `remember`.
import { html } from '/vendor/preact-htm.js';
import { coveredText } from './grants-panel.mjs';

export const alwaysOff = { on: false, path: '', kind: 'equals', value: '' };

/** As the CLI reads `--match path=value`: JSON when it parses (5, true, "5"), else the text itself. */
function jsonOrText(value) {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/**
 * The approval's `remember` for these fields (undefined when off), or `{ problem }` saying what to
 * fix before anything is sent.
 */
export function rememberOf(always) {
  if (!always.on) return undefined;
  const path = always.path.trim();
  if (path === '') return { match: [] };
  if (always.value === '')
    return { problem: 'give the value to compare the argument with, or leave the path empty' };
  if (always.kind === 'equals') return { match: [{ path, equals: jsonOrText(always.value) }] };
  try {
    new RegExp(always.value, 'u');
  } catch (error) {
    return { problem: `not a regular expression: ${error.message}` };
  }
  return { match: [{ path, pattern: always.value }] };
}

/** What the confirm dialog says the approval adds: `Also from now on: deploy calls where … run without asking.` */
export const alwaysLine = (call, remember) =>
  `Also from now on: ${coveredText({ toolName: call.toolName, match: remember.match })} run without asking, until the grant is revoked.`;

export function AlwaysAllow({ call, always, onChange }) {
  const set = (fields) => onChange({ ...always, ...fields });
  return html`<div class="always" data-always>
    <label><input type="checkbox" checked=${always.on} onChange=${(e) => set({ on: e.currentTarget.checked })} />
      Approve always: also allow this tool's later calls in this turn</label>
    ${
      always.on &&
      html`<div class="always-match">
        <span>Only where the argument</span>
        <input aria-label="Argument path" placeholder="e.g. target" maxlength="200" value=${always.path} onInput=${(e) => set({ path: e.currentTarget.value })} />
        <select aria-label="Compared by" value=${always.kind} onChange=${(e) => set({ kind: e.currentTarget.value })}>
          <option value="equals">equals</option>
          <option value="pattern">matches the regex</option>
        </select>
        <input aria-label="Value to compare with" maxlength="200" value=${always.value} onInput=${(e) => set({ value: e.currentTarget.value })} />
        <p class="hint">Leave the path empty to allow every ${call.toolName} call. A path is dot-separated (options.mode, files.0); a value is read as JSON when it parses (5, true, "5"), else as text.</p>
      </div>`
    }
  </div>`;
}
