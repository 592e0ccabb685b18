import { patched } from '@temporalio/workflow';
import { engineRevision } from '../../core';

/**
 * The one marker a run begun by today's code records. Each patch costs a run two events (the
 * marker and the `TemporalChangeVersion` upsert Temporal adds to it), and a turn used to meet four:
 * this one stands for all of them. Only a run without it (begun by older code, being replayed or
 * carried on) asks for the older ones, where and in the order older code did, so its history
 * replays; a later change adds its own marker and makes that the one new runs record.
 */
const currentPatch = 'durable-turns-workflow-8';
/**
 * The marker before it: runs begun under it send a rate-limited model's summary requests to the
 * turn's queue, and ask the model when halted while a request waited for its summary.
 */
const summaryRoutesPatch = 'durable-turns-workflow-7';
/** The marker before that: turns begun under it run under engine revision 2. */
const revisionTwoPatch = 'durable-turns-workflow-6';
/** The marker before that: runs begun under it run every quick call in a local activity of its own. */
const unchainedPatch = 'durable-turns-workflow-5';
/** The marker before that: runs begun under it are not parked, every attempt's outcome wakes the loop. */
const oneUpsertPatch = 'durable-turns-workflow-4';
/**
 * The marker before those (one per run, the loop waiting on its queue): runs begun under it write the
 * list's counts and the final status in two upserts.
 */
const queueWaitPatch = 'durable-turns-workflow-3';
/** Turns begun before it replay under engine revision 1 (see `engineRevision`). */
const revisionPatch = 'engine-revision-2';
/** Runs begun before it do not set the list's model, calls and tokens. */
const listAttributesPatch = 'turn-list-attributes';
/** Runs begun before it also wrote those on every wait for running calls. */
const boundariesPatch = 'turn-list-attributes-at-boundaries';

/** What a run of the turn workflow does, by the code that began it. */
export interface WorkflowRevision {
  /** The engine's rules for a turn begun now (a carried turn keeps its own). Asked once, if at all. */
  engineRevision: () => number;
  /** The list's model, calls and tokens are set. */
  listAttributes: boolean;
  /** Those are written at boundaries only, not at each wait for running calls (asked at the first such wait). */
  listAtBoundariesOnly: () => boolean;
  /** The loop waits on the host event queue itself, not with `condition` (see `HostEventQueue`). */
  wakeOnQueue: boolean;
  /** The turn's end writes the list's counts and its status in one upsert. */
  oneFinalUpsert: boolean;
  /** Attempts that end while the loop waits for the queue carry the loop on themselves (`HostEventQueue.park`). */
  resumeFromAttempts: boolean;
  /** Quick calls that run one after another run in one local activity (core's `runQuickChain`). */
  quickChains: boolean;
  /** A rate-limited model's summary requests go to its queue, as its requests do. */
  routedCompaction: boolean;
  /** A turn halted while its request waited for a summary waits for its background calls (`TurnEngine.next`). */
  haltedCompactionWaits: boolean;
}

/**
 * Asked first thing in every run. For an older run the engine's revision is asked before the list's
 * patch, as older code did (no command comes between them there).
 */
export function workflowRevision({ fresh }: { fresh: boolean }): WorkflowRevision {
  const current = {
    engineRevision: () => engineRevision,
    listAttributes: true,
    listAtBoundariesOnly: () => true,
    wakeOnQueue: true,
    oneFinalUpsert: true,
    resumeFromAttempts: true,
    quickChains: true,
    routedCompaction: true,
    haltedCompactionWaits: true,
  };
  if (patched(currentPatch)) return current;
  const summaryOnTurnQueue = { ...current, routedCompaction: false, haltedCompactionWaits: false };
  if (patched(summaryRoutesPatch)) return summaryOnTurnQueue;
  const revisionTwo = { ...summaryOnTurnQueue, engineRevision: () => 2 };
  if (patched(revisionTwoPatch)) return revisionTwo;
  const unchained = { ...revisionTwo, quickChains: false };
  if (patched(unchainedPatch)) return unchained;
  if (patched(oneUpsertPatch)) return { ...unchained, resumeFromAttempts: false };
  if (patched(queueWaitPatch)) return { ...unchained, oneFinalUpsert: false, resumeFromAttempts: false };
  const revision = fresh ? (patched(revisionPatch) ? 2 : 1) : undefined;
  let boundariesOnly: boolean | undefined;
  return {
    engineRevision: () => revision ?? 1,
    listAttributes: patched(listAttributesPatch),
    listAtBoundariesOnly: () => {
      boundariesOnly ??= patched(boundariesPatch);
      return boundariesOnly;
    },
    wakeOnQueue: false,
    oneFinalUpsert: false,
    resumeFromAttempts: false,
    quickChains: false,
    routedCompaction: false,
    haltedCompactionWaits: false,
  };
}
