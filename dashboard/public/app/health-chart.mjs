// Success rate over time, one line per series (a tool, or a tool's workers), drawn by uPlot from
// the fleet health workflow's points and the live readings since.
import { html, useEffect, useRef } from '/vendor/preact-htm.js';
import uPlot from '/vendor/uplot.js';
import { clockTime } from './format.mjs';

/** Tick steps in seconds: whole seconds up, so labels never read as fractions of one. */
const timeSteps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200];
/** The x-axis spans at least this, so a single reading does not make a zoom into milliseconds. */
const minSpanS = 60;

const colours = ['#1f6feb', '#b3261e', '#1a7f37', '#9a6700', '#8250df', '#bc4c00'];

/**
 * A series' colour from its name, not its place: a tool (or worker) keeps its colour when others
 * appear beside it. (Two names may share one: the legend names each line.)
 */
export function colourOf(name) {
  let hash = 0;
  for (let i = 0; i < name.length; i += 1) hash = (hash * 31 + name.charCodeAt(i)) >>> 0;
  return colours[hash % colours.length];
}

function optionsFor({ tools, width, height }) {
  return {
    width,
    height,
    scales: {
      x: {
        time: true,
        range: (_u, min, max) => (min !== null && max - min < minSpanS ? [max - minSpanS, max] : [min, max]),
      },
      y: { range: [0, 1] },
    },
    axes: [
      {
        incrs: timeSteps,
        // HH:MM:SS needs about 70 px: ticks no closer than that.
        space: 80,
        values: (_u, ticks) => ticks.map((t) => clockTime(t * 1000)),
      },
      { values: (_u, ticks) => ticks.map((v) => `${Math.round(v * 100)}%`) },
    ],
    series: [
      { value: (_u, t) => (t === null ? '' : clockTime(t * 1000)) },
      ...tools.map((tool) => ({
        label: tool,
        stroke: colourOf(tool),
        width: 2,
        spanGaps: true,
      })),
    ],
  };
}

/** `history`: `[{ at (ms), rates: { series: rate } }]`, oldest first; `label` names what it shows. */
export function SuccessRateChart({ history, label, small = false }) {
  const height = small ? 120 : 180;
  const box = useRef(null);
  const plot = useRef(null);
  const tools = [...new Set(history.flatMap((h) => Object.keys(h.rates)))].sort();
  const key = tools.join('\n');
  const data = [history.map((h) => h.at / 1000), ...tools.map((t) => history.map((h) => h.rates[t] ?? null))];
  // A new set of tools needs new series: make the chart again; otherwise only the data changes.
  useEffect(() => {
    plot.current?.destroy();
    plot.current = new uPlot(
      optionsFor({ tools, width: box.current.clientWidth || 320, height }),
      data,
      box.current,
    );
    const resize = () => plot.current?.setSize({ width: box.current.clientWidth || 320, height });
    addEventListener('resize', resize);
    return () => {
      removeEventListener('resize', resize);
      plot.current?.destroy();
      plot.current = null;
    };
  }, [key]);
  useEffect(() => {
    plot.current?.setData(data);
  });
  return html`<figure class=${`chart${small ? ' chart-small' : ''}`} data-first-at=${history[0]?.at} data-series=${tools.join(',')} data-colours=${tools.map(colourOf).join(',')}>
    <div ref=${box} role="img" aria-label=${`${label} over time: ${tools.join(', ') || 'none yet'}`}></div>
    <figcaption>${label}${history.length > 0 ? `, since ${clockTime(history[0].at)}` : ''} (${history.length} readings)</figcaption>
  </figure>`;
}
