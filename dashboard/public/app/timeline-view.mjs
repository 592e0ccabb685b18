// The timeline drawn: per model response a bar for its request and its text, then its calls in
// waves, each call a bar from its first start to its last end, each attempt a segment coloured by
// how it came out; between responses, the notes (timeline-notes.mjs).
import { html } from '/vendor/preact-htm.js';
import { Decision, OutputOrigin, originNote } from './call-decision.mjs';
import { duration, fileLabel, shortJson } from './format.mjs';
import { NoteRow } from './timeline-notes.mjs';
import { callOutcome, wavesOf } from './turn-timeline.mjs';

function spanOf(timeline, now) {
  const starts = timeline.calls.flatMap((c) => c.attempts.map((a) => a.startedAt));
  const from = timeline.openedAt ?? Math.min(now, ...starts);
  const to = timeline.finished ? Math.max(timeline.lastAt ?? from, from + 1) : Math.max(now, from + 1);
  return { from, to };
}

function Attempt({ attempt, span, now }) {
  const end = attempt.finishedAt ?? (attempt.outcome === 'running' ? now : span.to);
  // Within the track, whatever the clocks say: an attempt that began late (after an approval) or
  // runs past the span's end is cut at its edge, never drawn beyond it.
  const left = Math.min(99.2, Math.max(0, ((attempt.startedAt - span.from) / (span.to - span.from)) * 100));
  const width = Math.min(
    100 - left,
    Math.max(0.8, ((end - attempt.startedAt) / (span.to - span.from)) * 100),
  );
  const label = `attempt ${attempt.attempt}: ${attempt.outcome}, ${duration(end - attempt.startedAt)}`;
  return html`<span
    class=${`segment outcome-${attempt.outcome}`}
    data-attempt-outcome=${attempt.outcome}
    style=${{ left: `${left}%`, width: `${width}%` }}
    title=${label}
    aria-label=${label}
  ></span>`;
}

/**
 * A response's own bar: from its request (the last time recorded before it) to when its host had
 * it whole, retries included. None for one recorded by a host that did not say when it ended.
 */
function ResponseTrack({ response: r, span, now }) {
  const open = !r.recorded;
  if (r.requestedAfter === undefined || (!open && r.endedAt === undefined)) return null;
  const attempt = {
    attempt: r.failures.length + 1,
    startedAt: r.requestedAfter,
    finishedAt: open ? undefined : r.endedAt,
    outcome: open ? 'running' : 'ok',
  };
  const label = `response ${r.index + 1}: ${open ? 'streaming for' : 'took'} ${duration((attempt.finishedAt ?? now) - attempt.startedAt)}`;
  return html`<div class="track model-track" role="img" aria-label=${label} title=${label} data-response-track=${r.index}>
    <${Attempt} attempt=${attempt} span=${span} now=${now} />
  </div>`;
}

function Output({ output }) {
  const body = shortJson(output.content);
  const summary = `${output.status}${output.errorType ? ` (${output.errorType})` : ''}${
    output.truncated ? ' — truncated' : ''
  }, ${output.attempts} attempt${output.attempts === 1 ? '' : 's'}${originNote(output)}`;
  return html`<details class="output" data-output-status=${output.status}>
    <summary>Output: ${summary}</summary>
    ${output.truncated && html`<p class="badge truncated">cut to fit: the model saw this truncated output</p>`}
    <${OutputOrigin} output=${output} />
    <pre data-output-content>${body}</pre>
    ${output.files?.length > 0 && html`<ul class="files">${output.files.map((f) => html`<li data-file=${f.mediaType}>${fileLabel(f)}</li>`)}</ul>`}
    ${output.notice && html`<p class="notice">${output.notice}</p>`}
  </details>`;
}

function CallRow({ call, span, now, actions, fork, subAgents }) {
  const outcome = callOutcome(call);
  return html`<li class=${`call outcome-${outcome}`} data-call-id=${call.toolCallId} data-outcome=${outcome}
    data-wave=${call.wave ?? ''}>
    <div class="call-head">
      <code>${call.toolName}</code> <span class="call-id">${call.toolCallId}</span>
      <span class=${`badge outcome-${outcome}`}>${outcome === 'waiting' ? 'waiting for approval' : outcome}</span>
      ${
        call.fromRecord
          ? html`<span class="attempts">ran in the turn this one was forked from</span>`
          : html`<span class="attempts">${call.attempts.length} attempt${call.attempts.length === 1 ? '' : 's'}</span>`
      }
      ${call.inBackground && html`<span class="badge background" data-background="running">in the background</span>`}
    </div>
    ${
      !call.fromRecord &&
      html`<div class="track" role="img" aria-label=${`${call.toolCallId}: ${outcome}`}>
        ${call.attempts.map((attempt) => html`<${Attempt} attempt=${attempt} span=${span} now=${now} />`)}
      </div>`
    }
    ${call.decision && html`<${Decision} decision=${call.decision} />`}
    ${call.waiting && actions ? actions(call) : null}
    ${!call.output && subAgents ? subAgents(call) : null}
    ${call.output && html`<${Output} output=${call.output} />`}
    ${fork?.({ beforeCall: call.toolCallId })}
  </li>`;
}

/** The tracks' time scale: from the turn's start to its end (or now), marked at its quarters. */
function TimeAxis({ span }) {
  const length = span.to - span.from;
  return html`<div class="time-axis" aria-label=${`time since the turn started, 0 to ${duration(length)}`} data-axis-ms=${length}>
    ${[0, 0.25, 0.5, 0.75, 1].map(
      (f) => html`<span style=${{ left: `${f * 100}%` }}>${f === 0 ? '0' : duration(length * f)}</span>`,
    )}
  </div>`;
}

function waveHeading(w, timeline) {
  if (w.wave !== undefined) return `Wave ${w.wave + 1}`;
  // A fork's record: these calls ran in the turn it was forked from, in waves of that turn's.
  if (timeline.forked && w.calls.every((c) => c.fromRecord))
    return `Calls (from the record of turn ${timeline.forked.from}: they ran there)`;
  return 'Calls (wave not known: the feed began after the turn’s first entries)';
}

/**
 * `actions(call)`: what an operator may do about a waiting call; `fork(at)`: "fork from here" at a
 * point of a finished turn (after a response, before a call); `subAgents(call)`: what the sub-agent
 * a running call runs waits for. Each may be null.
 */
export function TimelineView({ timeline, now, actions, fork, subAgents }) {
  const span = spanOf(timeline, now);
  if (timeline.responses.length === 0 && timeline.notes.length === 0)
    return html`<p>No model response yet.</p>`;
  const notesAfter = (index) =>
    timeline.notes.filter((n) => n.afterResponse === index).map((note) => html`<${NoteRow} note=${note} />`);
  return html`<${TimeAxis} span=${span} /><ol class="timeline">
    ${notesAfter(-1)}
    ${timeline.responses.map(
      (
        r,
      ) => html`<li class="response" data-response=${r.index} data-streaming=${r.streaming && !r.recorded ? 'true' : 'false'}>
        <h3>Model response ${r.index + 1}${r.streaming && !r.recorded ? ' (streaming)' : ''}</h3>
        <${ResponseTrack} response=${r} span=${span} now=${now} />
        ${r.failures.map((f) => html`<p class="problem">attempt failed: ${f}</p>`)}
        <p class="response-text" aria-live=${r.recorded ? 'off' : 'polite'}>${r.text || (r.recorded ? '(no text)' : '…')}</p>
        ${wavesOf(timeline, r.index).map(
          (
            w,
          ) => html`<section class="wave" data-wave=${w.wave ?? ''} aria-label=${w.wave === undefined ? 'calls, wave not known' : `wave ${w.wave + 1}`}>
            <h4>${waveHeading(w, timeline)}</h4>
            <ul class="calls">
              ${w.calls.map((c) => html`<${CallRow} call=${c} span=${span} now=${now} actions=${actions} fork=${fork} subAgents=${subAgents} />`)}
            </ul>
          </section>`,
        )}
        ${r.recorded && fork?.({ afterResponse: r.index })}
      </li>${notesAfter(r.index)}`,
    )}
  </ol>`;
}
