// The workflow bundle's entry point: the worker registers workflows from this file.
import type * as FleetHealth from './fleet-health/fleet-health-workflow';

export { conversationWorkflow } from './conversation/conversation-workflow';
export { turnWorkflow } from './turn/turn-workflow';

/**
 * The fleet-health workflow, its modules evaluated only when one of its runs starts: a workflow run
 * evaluates every module its entry point imports (the SDK keeps modules apart per run), and a
 * turn's run has no use for these, their schemas built again for every turn.
 */
export function fleetHealthWorkflow(
  ...args: Parameters<typeof FleetHealth.fleetHealthWorkflow>
): ReturnType<typeof FleetHealth.fleetHealthWorkflow> {
  // A call, not an import: webpack bundles the module and evaluates it here, on first call.
  const loaded = require('./fleet-health/fleet-health-workflow') as typeof FleetHealth;
  return loaded.fleetHealthWorkflow(...args);
}
