import { approvalCases } from './approvals.cases';
import { backgroundCases } from './background.cases';
import { budgetCases } from './budgets.cases';
import { cancellationCases } from './cancellation.cases';
import { compactionCases } from './compaction.cases';
import { detectionCases } from './detection.cases';
import { edgeCases } from './edges.cases';
import { forkCases } from './fork.cases';
import type { ConformanceHarness } from './harness';
import { mcpCases } from './mcp.cases';
import { mcpSessionCases } from './mcp-sessions.cases';
import { outputCases } from './outputs.cases';
import { retryAndHookCases } from './retries-hooks.cases';
import { steerCases } from './steer.cases';
import { streamingCases } from './streaming.cases';
import { structuredOutputCases } from './structured-output.cases';
import { subAgentChargeCases } from './sub-agent-charges.cases';
import { subAgentCases } from './sub-agents.cases';
import { watchCases } from './watch.cases';
import { waveCases } from './waves.cases';

/**
 * Every semantic case, written once, run against any executor, in three parts of about equal time
 * on Temporal, so that its three test files run side by side (one file took two minutes alone).
 */
export const conformanceParts = {
  dispatch: [waveCases, outputCases, retryAndHookCases, approvalCases, steerCases],
  limits: [
    subAgentCases,
    subAgentChargeCases,
    cancellationCases,
    budgetCases,
    detectionCases,
    streamingCases,
    mcpCases,
    mcpSessionCases,
  ],
  edges: [edgeCases, watchCases, backgroundCases, compactionCases, structuredOutputCases, forkCases],
} as const satisfies Record<string, readonly ((harness: ConformanceHarness) => void)[]>;

export type ConformancePart = keyof typeof conformanceParts;

/** The cases of the parts named (default: all of them). */
export function conformanceSuite(
  harness: ConformanceHarness,
  parts: readonly ConformancePart[] = Object.keys(conformanceParts) as ConformancePart[],
): void {
  for (const part of parts) for (const cases of conformanceParts[part]) cases(harness);
}
