import { TurnEngine } from './turn-engine';
import { turnStateView, viewAt } from './turn-state-view';

const T0 = 1_000_000;

function runningView({ maxWallTimeMs }: { maxWallTimeMs?: number } = {}) {
  const { engine } = TurnEngine.start({
    turnId: 't',
    input: 'go',
    now: T0,
    ...(maxWallTimeMs !== undefined && { config: { budget: { maxWallTimeMs } } }),
  });
  return turnStateView(engine.view, T0 + 100);
}

describe('a turn state view read later (viewAt)', () => {
  test('a running turn’s wall time counts up to the reader’s now, and its wall-time budget down', () => {
    const view = runningView({ maxWallTimeMs: 10_000 });
    expect(view).toMatchObject({
      startedAt: T0,
      spent: { wallTimeMs: 100 },
      budgetLeft: { wallTimeMs: 9_900 },
    });
    const later = viewAt(view, T0 + 4_000);
    expect(later.spent.wallTimeMs).toBe(4_000);
    expect(later.budgetLeft.wallTimeMs).toBe(6_000);
    expect(viewAt(view, T0 + 60_000).budgetLeft.wallTimeMs).toBe(0);
  });

  test('a reader whose clock is behind gets the view as the workflow made it', () => {
    const view = runningView();
    expect(viewAt(view, T0 + 50)).toBe(view);
  });

  test('a finished turn, and a view without a start (an older worker), are left as they are', () => {
    const view = runningView();
    const finished = { ...view, status: 'completed' as const };
    expect(viewAt(finished, T0 + 9_000)).toBe(finished);
    const { startedAt: _, ...older } = view;
    expect(viewAt(older as typeof view, T0 + 9_000)).toBe(older);
  });

  test('no wall-time budget stays none', () => {
    expect(viewAt(runningView(), T0 + 5_000).budgetLeft).not.toHaveProperty('wallTimeMs');
  });
});
