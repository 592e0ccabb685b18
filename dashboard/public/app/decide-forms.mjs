// The two decisions on a waiting call besides a plain yes or no: approve it with edited arguments
// (checked by the turn against the tool's schema; a refusal is shown here, and the call waits on),
// or answer in the tool's place (the call does not run; the text is its output).
import { html, useState } from '/vendor/preact-htm.js';
import { callActionPath, postAction } from './api.mjs';
import { shortJson } from './format.mjs';

/** The tool's required arguments and their types, from its JSON Schema: `target (string)`. */
function requiredOf(schema) {
  const properties = schema?.properties ?? {};
  return (Array.isArray(schema?.required) ? schema.required : []).map((name) => {
    const type = properties[name]?.type;
    return typeof type === 'string' ? `${name} (${type})` : name;
  });
}

const reasonLine = (reason) => (reason ? `Reason: ${reason}` : 'No reason given.');

/** The arguments as pretty JSON to edit; sent with approve once they parse and are confirmed. */
export function EditArguments({ turnId, call, reason, ask, fieldId = call.toolCallId }) {
  const [text, setText] = useState(() => JSON.stringify(call.input ?? null, null, 2));
  const [problem, setProblem] = useState('');
  const id = `args-${fieldId}`;
  const required = requiredOf(call.approval?.inputSchema ?? call.inputSchema);
  const submit = (event) => {
    event.preventDefault();
    let input;
    try {
      input = JSON.parse(text);
    } catch (error) {
      setProblem(`not JSON: ${error.message}`);
      return;
    }
    setProblem('');
    ask({
      title: `Approve ${call.toolName} (${call.toolCallId}) with edited arguments?`,
      detail: html`<span>It runs with these instead of the model's:</span><pre class="call-args" data-confirm-args>${shortJson(input)}</pre>${reasonLine(reason)}`,
      confirm: 'Approve',
      done: `${call.toolCallId} approved with edited arguments`,
      run: () => postAction(callActionPath(turnId, call, 'approve'), { input, ...(reason && { reason }) }),
      // The turn refused the edit (or the call no longer waits): said here, beside the arguments.
      onRefused: (error) => setProblem(error.message),
    });
  };
  return html`<form class="decide-form" data-edit-arguments onSubmit=${submit}>
    <label for=${id}>Arguments (JSON): the call runs with these instead of the model's</label>
    ${required.length > 0 && html`<p class="hint" data-required>Required: ${required.join(', ')}</p>`}
    <textarea id=${id} rows="8" spellcheck="false" value=${text} onInput=${(e) => setText(e.currentTarget.value)}></textarea>
    ${problem && html`<p class="problem" role="alert" data-edit-problem>${problem}</p>`}
    <div class="buttons"><button type="submit" class="primary">Approve with these arguments</button></div>
  </form>`;
}

/** Text that becomes the call's output, as if the tool had answered; the call does not run. */
export function RespondInstead({ turnId, call, reason, ask, fieldId = call.toolCallId }) {
  const [text, setText] = useState('');
  const id = `respond-${fieldId}`;
  const submit = (event) => {
    event.preventDefault();
    ask({
      title: `Answer ${call.toolName} (${call.toolCallId}) in the tool's place?`,
      detail: html`<span>It does not run; the model reads this as its output:</span><pre class="call-args" data-confirm-output>${text}</pre>${reasonLine(reason)}`,
      confirm: 'Respond',
      done: `${call.toolCallId} answered`,
      run: () =>
        postAction(callActionPath(turnId, call, 'respond'), {
          output: text,
          ...(reason && { reason }),
        }),
    });
  };
  return html`<form class="decide-form" data-respond onSubmit=${submit}>
    <label for=${id}>Output the model reads in the tool's place</label>
    <textarea id=${id} rows="4" required maxlength="65536" value=${text} onInput=${(e) => setText(e.currentTarget.value)}></textarea>
    <div class="buttons"><button type="submit" class="primary" disabled=${text.length === 0}>Respond with this text</button></div>
  </form>`;
}
