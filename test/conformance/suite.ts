import { backgroundCases } from './background.cases';
import { budgetCases } from './budgets.cases';
import { cancellationCases } from './cancellation.cases';
import { detectionCases } from './detection.cases';
import { edgeCases } from './edges.cases';
import type { ConformanceHarness } from './harness';
import { outputCases } from './outputs.cases';
import { retryAndHookCases } from './retries-hooks.cases';
import { streamingCases } from './streaming.cases';
import { watchCases } from './watch.cases';
import { waveCases } from './waves.cases';

/** Every semantic case, written once, run against any executor. */
export function conformanceSuite(harness: ConformanceHarness): void {
  waveCases(harness);
  outputCases(harness);
  retryAndHookCases(harness);
  cancellationCases(harness);
  budgetCases(harness);
  detectionCases(harness);
  streamingCases(harness);
  edgeCases(harness);
  watchCases(harness);
  backgroundCases(harness);
}
