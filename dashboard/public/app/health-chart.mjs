// Success rate over time, one line per tool, drawn by uPlot from the health events this page has
// received (the fleet view holds the current rates, not their history).
import { html, useEffect, useRef } from '/vendor/preact-htm.js';
import uPlot from '/vendor/uplot.js';

const colours = ['#1f6feb', '#b3261e', '#1a7f37', '#9a6700', '#8250df', '#bc4c00'];

function optionsFor({ tools, width }) {
  return {
    width,
    height: 180,
    scales: { y: { range: [0, 1] } },
    axes: [{}, { values: (_u, ticks) => ticks.map((v) => `${Math.round(v * 100)}%`) }],
    series: [
      {},
      ...tools.map((tool, i) => ({
        label: tool,
        stroke: colours[i % colours.length],
        width: 2,
        spanGaps: true,
      })),
    ],
  };
}

/** `history`: `[{ at (ms), rates: { tool: rate } }]`, oldest first. */
export function SuccessRateChart({ history }) {
  const box = useRef(null);
  const plot = useRef(null);
  const tools = [...new Set(history.flatMap((h) => Object.keys(h.rates)))].sort();
  const key = tools.join('\n');
  const data = [history.map((h) => h.at / 1000), ...tools.map((t) => history.map((h) => h.rates[t] ?? null))];
  // A new set of tools needs new series: make the chart again; otherwise only the data changes.
  useEffect(() => {
    plot.current?.destroy();
    plot.current = new uPlot(optionsFor({ tools, width: box.current.clientWidth || 320 }), data, box.current);
    const resize = () => plot.current?.setSize({ width: box.current.clientWidth || 320, height: 180 });
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
  return html`<figure class="chart">
    <div ref=${box} role="img" aria-label=${`Recent success rate over time of ${tools.join(', ') || 'no tool yet'}`}></div>
    <figcaption>Recent success rate per tool, since this page opened (${history.length} readings)</figcaption>
  </figure>`;
}
