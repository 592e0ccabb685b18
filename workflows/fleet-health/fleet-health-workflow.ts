import { condition, continueAsNew, log, setHandler, workflowInfo } from '@temporalio/workflow';
import {
  type FleetHealthState,
  type FleetHealthWorkflowInput,
  fleetHealthQuery,
  fleetHealthWorkflowInputSchema,
  reportHealthSignal,
  workerHealthReportSchema,
  workerLeftSignal,
} from '../../contract/fleet-health';
import { fleetHealthHistoryQuery, HealthHistory, healthPointOf } from '../../contract/fleet-health-history';
import { FleetRoster } from './fleet-health-roster';

/**
 * One per task queue (`fleetHealthWorkflowId`): merges the tool health every worker on the queue
 * reports by signal, answers the roster by query, and drops a worker whose reports stop — with a
 * timer set for the earliest expiry, so drop-out needs no clock but the workflow's. It finishes
 * once the last worker is gone (the next report starts a new run: no workflow lingers for a fleet
 * that no longer exists) and continues as new after `continueAsNewAfterSignals` reports, carrying
 * the roster, so its history stays small however long the fleet lives. It also keeps the tools'
 * success rates over time (`fleetHealthHistoryQuery`): a point at most every `history.everyMs`,
 * taken when a report arrives, carried across continue-as-new like the roster.
 */
export async function fleetHealthWorkflow(rawInput: FleetHealthWorkflowInput): Promise<FleetHealthState> {
  const input = fleetHealthWorkflowInputSchema.parse(rawInput);
  const roster = new FleetRoster({ carried: input.workers });
  const history = new HealthHistory(input.history, input.historyPoints);
  let signals = 0;
  const state = (): FleetHealthState => ({
    taskQueue: input.taskQueue,
    asOf: Date.now(),
    run: input.run,
    workers: roster.records(),
  });

  // A malformed report is dropped, not thrown: a throwing handler would fail the workflow task
  // and hold every later report behind it.
  setHandler(reportHealthSignal, (raw) => {
    signals += 1;
    const parsed = workerHealthReportSchema.safeParse(raw);
    if (parsed.success) {
      const now = Date.now();
      roster.report({ report: parsed.data, now });
      if (history.due({ at: now }))
        history.add({ point: healthPointOf({ workers: roster.records(), at: now }) });
    } else log.warn('fleet health: dropped a malformed report', { issues: parsed.error.issues.length });
  });
  setHandler(workerLeftSignal, (raw) => {
    signals += 1;
    if (typeof raw?.identity === 'string') roster.leave({ identity: raw.identity });
  });
  setHandler(fleetHealthQuery, state);
  setHandler(fleetHealthHistoryQuery, () => history.body());

  const continueAsNewDue = () =>
    signals >= input.continueAsNewAfterSignals || workflowInfo().continueAsNewSuggested;
  for (;;) {
    roster.prune({ now: Date.now() });
    if (roster.size === 0) return state();
    if (continueAsNewDue()) {
      await continueAsNew<typeof fleetHealthWorkflow>({
        ...input,
        workers: roster.records(),
        historyPoints: history.list(),
        run: input.run + 1,
      });
    }
    // Wakes at the earliest expiry, or sooner when a report brings an earlier one (a new worker
    // with a shorter TTL), the roster empties or continue-as-new is due; reports from workers
    // already in the roster only push their expiry later and wake nothing.
    const target = roster.nextExpiry() ?? Date.now();
    await condition(
      () => continueAsNewDue() || roster.size === 0 || (roster.nextExpiry() ?? target) < target,
      Math.max(1, target - Date.now()),
    );
  }
}
