import { stripVTControlCharacters } from 'node:util';
import { twoWorkerState } from '../test/support/fleet-health-state';
import { emptyFleetHealthView, fleetHealthView } from './fleet-health-view';
import { renderFleetHealth } from './render-fleet-health';

const view = fleetHealthView({ state: twoWorkerState, workflowId: 'durable-turns-health:agents' });
const now = Date.parse('2026-12-01T10:00:05.250Z');

describe('renderFleetHealth', () => {
  const text = renderFleetHealth({ view, color: false, now });
  const lines = text.split('\n');

  it('names every worker with how long ago it last reported', () => {
    expect(text).toContain('Tool health on task queue agents: 2 workers');
    expect(lines.find((l) => l.startsWith('worker-a'))).toMatch(
      /5 s ago \(2026-12-01T10:00:00.250Z\)\s+10 s\s+30 s silent\s+7\s+2$/,
    );
  });

  it('gives per tool a fleet row, then a row per worker with its own status, circuit and counts', () => {
    const lookup = lines.findIndex((l) => l.startsWith('lookup'));
    expect(lines[lookup]).toMatch(/^lookup\s+\(2 workers\)\s+degraded\s+1 open\s+8\s+2\s+6\s+0\s+25%/);
    expect(lines[lookup + 1]).toMatch(/^\s+worker-a\s+unhealthy\s+open\s+6\s+0\s+6\s+0\s+0%\s+2 ms\s+4 ms$/);
    expect(lines[lookup + 2]).toMatch(
      /^\s+worker-b\s+healthy\s+closed\s+2\s+2\s+0\s+0\s+100%\s+10 ms\s+30 ms$/,
    );
  });

  it('aligns columns: every row of the tool table puts STATUS at the same place', () => {
    const header = lines.find((l) => l.startsWith('TOOL')) ?? '';
    const at = header.indexOf('STATUS');
    for (const line of lines.filter((l) => /healthy|degraded/.test(l)))
      expect(line.slice(at)).toMatch(/^(healthy|unhealthy|degraded)/);
  });

  it('colours only when asked, and colour changes nothing else', () => {
    expect(stripVTControlCharacters(text)).toBe(text);
    const coloured = renderFleetHealth({ view, color: true, now });
    expect(coloured).not.toBe(text);
    expect(stripVTControlCharacters(coloured)).toBe(text);
  });

  it('says so when no worker reports, and how workers come to report', () => {
    const empty = renderFleetHealth({
      view: emptyFleetHealthView({ taskQueue: 'agents', workflowId: 'durable-turns-health:agents' }),
      color: false,
    });
    expect(empty).toContain('No worker reports tool health on task queue agents');
    expect(empty).toContain('fleetHealth: false');
  });
});
