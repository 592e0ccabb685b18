import { styleText } from 'node:util';
import type { FleetHealthView, FleetToolAggregate, WorkerToolHealth } from './fleet-health-view';

type Style = Parameters<typeof styleText>[0];

/**
 * The fleet view as the table `durable-turns health` prints: the workers with their last report,
 * then per tool a row for the fleet and a row per worker. `color` adds ANSI colours (the caller
 * decides: a TTY, NO_COLOR); `now` is the clock the "ago" column reads.
 */
export function renderFleetHealth({
  view,
  color,
  now = Date.now(),
}: {
  view: FleetHealthView;
  color: boolean;
  now?: number;
}): string {
  const paint = (style: Style, text: string) =>
    color ? styleText(style, text, { validateStream: false }) : text;
  if (view.workers.length === 0) {
    return (
      `No worker reports tool health on task queue ${view.taskQueue} (workflow ${view.workflowId} is not running).\n` +
      'Turn workers report while they run, unless created with fleetHealth: false.\n'
    );
  }
  const lines = [
    paint(
      'bold',
      `Tool health on task queue ${view.taskQueue}: ${count(view.workers.length, 'worker')}` +
        (view.asOf ? `, as of ${view.asOf}` : ''),
    ),
    '',
    ...table({
      paint,
      header: ['WORKER', 'LAST REPORT', 'EVERY', 'DROPS OUT AFTER', 'REPORTS', 'TOOLS'],
      rows: view.workers.map((w) => [
        { text: w.identity },
        { text: `${ago({ at: w.lastReportAt, now })} (${w.lastReportAt})` },
        { text: duration(w.intervalMs) },
        { text: `${duration(w.ttlMs)} silent` },
        { text: String(w.reports) },
        { text: String(w.toolCount) },
      ]),
    }),
    '',
  ];
  if (view.tools.length === 0) {
    lines.push('No tool has run on these workers yet.');
    return `${lines.join('\n')}\n`;
  }
  lines.push(
    ...table({
      paint,
      header: [
        'TOOL',
        'WORKER',
        'STATUS',
        'CIRCUIT',
        'ATTEMPTS',
        'OK',
        'FAILED',
        'TIMED OUT',
        'RECENT',
        'MEAN',
        'MAX',
      ],
      rows: view.tools.flatMap((tool) => [
        [
          { text: tool.toolName, style: 'bold' as Style },
          { text: `(${count(tool.aggregate.workers, 'worker')})` },
          ...counters({ health: tool.aggregate, circuit: circuitsOf(tool.aggregate) }),
        ],
        ...tool.workers.map((w) => [
          { text: '' },
          { text: w.identity },
          ...counters({ health: w, circuit: { text: w.circuit, style: circuitStyle(w.circuit) } }),
        ]),
      ]),
    }),
  );
  return `${lines.join('\n')}\n`;
}

interface Cell {
  text: string;
  style?: Style;
}

function counters({
  health,
  circuit,
}: {
  health: FleetToolAggregate | WorkerToolHealth;
  circuit: Cell;
}): Cell[] {
  return [
    { text: health.status, style: statusStyle(health.status) },
    circuit,
    { text: String(health.attempts) },
    { text: String(health.successes) },
    { text: String(health.failures), ...(health.failures > 0 ? { style: 'red' as Style } : {}) },
    { text: String(health.timeouts), ...(health.timeouts > 0 ? { style: 'yellow' as Style } : {}) },
    { text: `${Math.round(health.recentSuccessRate * 100)}%` },
    { text: duration(Math.round(health.latencyMs.mean)) },
    { text: duration(Math.round(health.latencyMs.max)) },
  ];
}

/** The fleet's circuits: "closed" when all are, else how many are open / half-open. */
function circuitsOf(aggregate: FleetToolAggregate): Cell {
  const { open, halfOpen } = aggregate.circuits;
  if (open === 0 && halfOpen === 0) return { text: 'closed', style: 'green' };
  const parts = [open ? `${open} open` : '', halfOpen ? `${halfOpen} half-open` : ''].filter(Boolean);
  return { text: parts.join(', '), style: open ? 'red' : 'yellow' };
}

function statusStyle(status: string): Style {
  return status === 'healthy' ? 'green' : status === 'degraded' ? 'yellow' : 'red';
}

function circuitStyle(circuit: string): Style {
  return circuit === 'closed' ? 'green' : circuit === 'half-open' ? 'yellow' : 'red';
}

/** Columns padded to their widest cell (measured before colouring). */
function table({
  paint,
  header,
  rows,
}: {
  paint: (style: Style, text: string) => string;
  header: string[];
  rows: Cell[][];
}): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.text.length ?? 0)));
  const line = (cells: Cell[]) =>
    cells
      .map((cell, i) => {
        const padded = i === cells.length - 1 ? cell.text : cell.text.padEnd(widths[i] ?? 0);
        return cell.style ? paint(cell.style, padded) : padded;
      })
      .join('  ')
      .trimEnd();
  return [line(header.map((text) => ({ text, style: 'dim' as Style }))), ...rows.map(line)];
}

function ago({ at, now }: { at: string; now: number }): string {
  // Clocks of server and reader differ a little: a report "from the future" reads as just now.
  const ms = Math.max(0, now - Date.parse(at));
  return ms < 1_000 ? 'just now' : `${duration(ms)} ago`;
}

function duration(ms: number): string {
  if (ms < 1_000) return `${ms} ms`;
  if (ms < 60_000) return `${Number((ms / 1_000).toFixed(1))} s`;
  if (ms < 3_600_000) return `${Number((ms / 60_000).toFixed(1))} min`;
  return `${Number((ms / 3_600_000).toFixed(1))} h`;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
