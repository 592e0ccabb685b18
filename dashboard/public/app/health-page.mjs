// Tool health across the fleet: per tool and per worker, success rate (and its chart over time),
// latency, failures, timeouts and circuit state, from `GET /api/health/events` (whose `history` event
// brings the past the fleet health workflow kept). An open circuit is flagged on the tool and on the
// worker that holds it.
import { html, useEffect, useState } from '/vendor/preact-htm.js';
import { duration, percent, time } from './format.mjs';
import { SuccessRateChart } from './health-chart.mjs';

// Readings the page holds: the fleet workflow's 30 minutes (a point per 10 s) and the live ones since.
const keptReadings = 900;

/**
 * A live view as a point like the fleet workflow's: per tool its fleet rate and each worker's, null
 * with no attempts (a gap, not 100 %), at the roster's own time (the server's clock, as the
 * workflow's points are).
 */
function pointOf(view) {
  const tools = {};
  for (const t of view.tools)
    tools[t.toolName] = {
      recentSuccessRate: t.aggregate.attempts === 0 ? null : t.aggregate.recentSuccessRate,
      workers: Object.fromEntries(
        t.workers.map((w) => [w.identity, w.attempts === 0 ? null : w.recentSuccessRate]),
      ),
    };
  return { at: Date.parse(view.asOf), tools };
}

/** The points as one chart's readings: `pick(point)` gives `{ series: rate }`. */
const readingsOf = (points, pick) => points.map((p) => ({ at: p.at, rates: pick(p) }));
const fleetRates = (p) =>
  Object.fromEntries(Object.entries(p.tools).map(([t, v]) => [t, v.recentSuccessRate]));

function useHealth() {
  const [view, setView] = useState(null);
  const [points, setPoints] = useState([]);
  const [problem, setProblem] = useState('');
  useEffect(() => {
    const events = new EventSource('/api/health/events');
    events.addEventListener('health', (e) => {
      const next = JSON.parse(e.data);
      setView(next);
      setProblem('');
      // A new point only when the roster changed (a report came): reads between reports add nothing.
      if (next.asOf)
        setPoints((old) => {
          const point = pointOf(next);
          return old.length > 0 && (old.at(-1)?.at ?? 0) >= point.at
            ? old
            : [...old, point].slice(-keptReadings);
        });
    });
    // The past as the fleet health workflow kept it: it replaces what the page has, live points
    // newer than its last one stay (so a reconnect draws nothing twice).
    events.addEventListener('history', (e) => {
      const { points: past } = JSON.parse(e.data);
      setPoints((old) => {
        const end = past.at(-1)?.at ?? Number.NEGATIVE_INFINITY;
        return [...past, ...old.filter((p) => p.at > end)].slice(-keptReadings);
      });
    });
    events.addEventListener('error', (e) => {
      setProblem(
        e.data
          ? (JSON.parse(e.data).error ?? 'reading the fleet failed')
          : 'the health feed dropped; reconnecting…',
      );
    });
    return () => events.close();
  }, []);
  return { view, points, problem };
}

function Circuit({ state }) {
  return html`<span class=${`badge circuit-${state}`} data-circuit=${state}>${state === 'open' ? 'circuit open' : state}</span>`;
}

/** A tool nobody has run yet is not healthy: nothing is known of it. */
const shownStatus = (aggregate) => (aggregate.attempts === 0 ? 'untried' : aggregate.status);

function ToolCard({ tool, points }) {
  const a = tool.aggregate;
  const open = a.circuits.open > 0;
  return html`<section class=${`tool${open ? ' circuit-open' : ''}`} data-tool=${tool.toolName} aria-label=${`tool ${tool.toolName}`}>
    <h3><code>${tool.toolName}</code> <span class=${`badge health-${shownStatus(a)}`} data-health=${shownStatus(a)}>${shownStatus(a)}</span>
      ${open && html`<span class="badge circuit-open" data-circuit-open="true">circuit open on ${a.circuits.open} of ${a.workers}</span>`}</h3>
    <dl class="facts">
      <dt>Success rate (recent)</dt><dd>${a.attempts === 0 ? 'no attempts yet' : percent(a.recentSuccessRate)}</dd>
      <dt>Attempts</dt><dd>${a.attempts} (${a.successes} ok, ${a.failures} failed, ${a.timeouts} timed out)</dd>
      <dt>Latency</dt><dd>mean ${duration(a.latencyMs.mean)}, max ${duration(a.latencyMs.max)}</dd>
    </dl>
    <${SuccessRateChart}
      history=${readingsOf(points, (p) => p.tools[tool.toolName]?.workers ?? {})}
      label=${`Recent success rate of ${tool.toolName} per worker`}
      small=${true}
    />
    <div class="table-wrap">
      <table>
        <caption>Per worker</caption>
        <thead><tr><th scope="col">Worker</th><th scope="col">Circuit</th><th scope="col">Success</th>
          <th scope="col">Failures</th><th scope="col">Timeouts</th><th scope="col">Latency (mean)</th></tr></thead>
        <tbody>
          ${tool.workers.map(
            (w) => html`<tr class=${w.circuit === 'open' ? 'circuit-open' : ''} data-worker=${w.identity}>
              <th scope="row">${w.identity}</th><td><${Circuit} state=${w.circuit} /></td>
              <td>${w.attempts === 0 ? '—' : percent(w.recentSuccessRate)}</td><td>${w.failures}</td><td>${w.timeouts}</td>
              <td>${duration(w.latencyMs.mean)}</td></tr>`,
          )}
        </tbody>
      </table>
    </div>
  </section>`;
}

export function HealthPage() {
  const { view, points, problem } = useHealth();
  const openTools = view?.tools.filter((t) => t.aggregate.circuits.open > 0) ?? [];
  return html`
    <h1>Tool health</h1>
    ${problem && html`<p class="problem" role="alert">${problem}</p>`}
    ${!view && !problem && html`<p>Reading the fleet…</p>`}
    ${
      view &&
      html`<p>Task queue <code>${view.taskQueue}</code>: ${view.workers.length} worker${view.workers.length === 1 ? '' : 's'} reporting${
        view.asOf ? `, as of ${time(view.asOf)}` : ''
      }.</p>
      ${
        openTools.length > 0 &&
        html`<p class="problem" role="alert">Circuit open: ${openTools.map((t) => t.toolName).join(', ')} — calls to it are refused until it cools down.</p>`
      }
      <${SuccessRateChart} history=${readingsOf(points, fleetRates)} label="Recent success rate per tool" />
      ${view.tools.length === 0 && html`<p>No tool has run on a reporting worker yet.</p>`}
      ${view.tools.map((tool) => html`<${ToolCard} key=${tool.toolName} tool=${tool} points=${points} />`)}
      <h2>Workers</h2>
      <div class="table-wrap">
        <table>
          <caption>Workers reporting to the fleet</caption>
          <thead><tr><th scope="col">Identity</th><th scope="col">Last report</th><th scope="col">Reports</th><th scope="col">Tools</th></tr></thead>
          <tbody>
            ${view.workers.map(
              (w) =>
                html`<tr><th scope="row">${w.identity}</th><td>${time(w.lastReportAt)}</td><td>${w.reports}</td><td>${w.toolCount}</td></tr>`,
            )}
          </tbody>
        </table>
      </div>`
    }
  `;
}
