import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { upsertSearchAttributes } from '@temporalio/workflow';
import { modelKey, tokensKey, toolCallsKey } from '../../contract/search-attributes';
import { type TurnState, totalTokens } from '../../core';

import type { WorkflowRevision } from './workflow-revision';

/**
 * The model, tool calls and tokens of a turn as search attributes, so a list of turns (the
 * dashboard's, `durable-turns list`, the Web UI's) shows them without asking each turn. Each
 * upsert is an event in the turn's history, so the numbers are written only when they changed,
 * at the points an operator looks: a response ended, the turn waits, the turn finished.
 */
export class TurnListAttributes {
  private readonly enabled: boolean;
  private shown = { toolCalls: -1, tokens: -1 };
  /** A response ended and its counts wait for the run's next wait (or its end) to be written. */
  private due = false;

  /**
   * Runs begun by older code may not write them (a replay of their history must not meet upserts
   * it never had), or may write them at every wait for running calls (an event per call).
   */
  constructor(
    private readonly revision: Pick<
      WorkflowRevision,
      'listAttributes' | 'listAtBoundariesOnly' | 'oneFinalUpsert'
    >,
  ) {
    this.enabled = revision.listAttributes;
  }

  /**
   * A response ended. Its counts are written when the run next waits — the same workflow task, so
   * an operator sees them as soon — or with the final status if the turn ends first (one upsert,
   * one event); runs begun before wrote them at once.
   */
  afterResponse(view: Readonly<TurnState>): void {
    if (this.revision.oneFinalUpsert) this.due = true;
    else this.update(view);
  }

  /**
   * The turn ended: what the final status upsert is to carry with it. Runs begun before the one
   * final upsert write the counts apart, now, and give it nothing.
   */
  atEnd(view: Readonly<TurnState>): SearchAttributeUpdatePair[] {
    if (this.revision.oneFinalUpsert) return this.changed(view);
    this.update(view);
    return [];
  }

  /** Before the run waits: the counts of a response that ended, if not yet written. */
  beforeWait(view: Readonly<TurnState>): void {
    if (!this.due) return;
    this.due = false;
    this.update(view);
  }

  /**
   * At a wait: written when the turn waits for a person, a timer or calls in the background (an
   * operator looks then), not while it waits for calls it just started.
   */
  atWait(view: Readonly<TurnState>, { forRunningCalls }: { forRunningCalls: boolean }): void {
    // Asked at the first wait for running calls only: an older run's patch marker came there.
    if (forRunningCalls && this.revision.listAtBoundariesOnly()) return;
    this.update(view);
  }

  /** What the turn's first upsert adds (one event for all of them): the model. */
  opening({ model }: { model: string }): SearchAttributeUpdatePair[] {
    return this.enabled ? [{ key: modelKey, value: model }] : [];
  }

  update(view: Readonly<TurnState>): void {
    const changed = this.changed(view);
    if (changed.length > 0) upsertSearchAttributes(changed);
  }

  /** What changed since last written, taken as written. */
  private changed(view: Readonly<TurnState>): SearchAttributeUpdatePair[] {
    this.due = false;
    if (!this.enabled) return [];
    const toolCalls = view.spent.toolCalls;
    const tokens = totalTokens(view.spent.usage);
    if (toolCalls === this.shown.toolCalls && tokens === this.shown.tokens) return [];
    this.shown = { toolCalls, tokens };
    return [
      { key: toolCallsKey, value: toolCalls },
      { key: tokensKey, value: tokens },
    ];
  }
}
