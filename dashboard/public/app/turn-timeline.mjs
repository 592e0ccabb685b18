// A turn's timeline, folded from its event stream (a fork's with the record it began from): model
// responses (with their streamed text), each call with its attempts, its wave and its outcome, the
// notes between responses (a user's message that joined the turn, the context compacted, a grant
// given or revoked, an answer the output schema rejected), the grants in force, and a structured
// answer once the turn has it. Pure functions of the events, so the page draws the same whether it
// watched from the start or joined late (the stream replays).

export function emptyTimeline() {
  return {
    openedAt: undefined,
    lastAt: undefined,
    responses: [],
    calls: [],
    notes: [],
    finished: undefined,
    state: undefined,
    grants: [],
    // A fork's source and fork point (`turn.forked`).
    forked: undefined,
  };
}

function response(timeline, index) {
  let found = timeline.responses.find((r) => r.index === index);
  if (!found) {
    found = { index, text: '', streaming: false, recorded: false, failures: [] };
    timeline.responses = [...timeline.responses, found].sort((a, b) => a.index - b.index);
  }
  return found;
}

/** Entries shown as they are, between responses: each after the response last asked for (-1: before any). */
const noteTypes = new Set([
  'user.steered',
  'context.compaction_requested',
  'context.compaction_failed',
  'context.compacted',
  'approval.granted',
  'approval.revoked',
  'output.rejected',
]);

function call(timeline, toolCallId) {
  return timeline.calls.find((c) => c.toolCallId === toolCallId);
}

function addCall(timeline, { responseIndex, prepared, waves }) {
  const wave = waves?.[prepared.toolCallId];
  const known = call(timeline, prepared.toolCallId);
  if (known) {
    if (wave !== undefined) known.wave = wave;
    return;
  }
  timeline.calls.push({
    toolCallId: prepared.toolCallId,
    toolName: prepared.toolName,
    // What the call runs with: an operator deciding on it must see it.
    input: prepared.input,
    // What an edit of its arguments must match (recorded with calls that need approval).
    inputSchema: prepared.inputSchema,
    responseIndex,
    wave,
    attempts: [],
    waiting: false,
    decision: undefined,
    output: undefined,
    background: prepared.policy?.background === true,
  });
}

const textOf = (message) =>
  (message?.content ?? [])
    .filter((part) => part.type === 'text')
    .map((part) => part.text)
    .join('');

/**
 * The timeline after one journal entry (a copy: the page keeps its old one until it draws).
 * `waves` is what the server's feed adds to an entry that adds calls: their waves, planned by the
 * engine's own rules (the page never guesses them).
 */
export function withEntry(old, entry, waves) {
  const timeline = { ...old, calls: old.calls.map((c) => ({ ...c, attempts: [...c.attempts] })) };
  timeline.responses = old.responses.map((r) => ({ ...r }));
  if (typeof entry.at === 'number') timeline.lastAt = Math.max(timeline.lastAt ?? 0, entry.at);
  if (noteTypes.has(entry.type))
    timeline.notes = [...old.notes, { entry, afterResponse: timeline.responses.at(-1)?.index ?? -1 }];
  switch (entry.type) {
    case 'turn.opened':
      timeline.openedAt = entry.at;
      break;
    case 'turn.started':
      timeline.input = entry.input;
      break;
    case 'turn.forked': {
      // A fork begins with its source's record up to the fork point: drawn as it was recorded
      // there (its calls ran in the source, so they have outputs and no attempts here).
      let folded = timeline;
      for (const event of entry.events) folded = withEntry(folded, event);
      for (const c of folded.calls) if (!call(timeline, c.toolCallId)) c.fromRecord = true;
      return { ...folded, forked: { from: entry.from, point: entry.point } };
    }
    case 'model.requested':
      response(timeline, entry.responseIndex).requestedAfter = timeline.lastAt ?? timeline.openedAt;
      break;
    case 'model.call_accepted':
      addCall(timeline, { responseIndex: entry.responseIndex, prepared: entry.call, waves });
      break;
    case 'model.responded': {
      const r = response(timeline, entry.responseIndex);
      Object.assign(r, { text: textOf(entry.message), recorded: true, streaming: false, usage: entry.usage });
      for (const prepared of entry.calls)
        addCall(timeline, { responseIndex: entry.responseIndex, prepared, waves });
      break;
    }
    case 'model.response_ended':
      response(timeline, entry.responseIndex).endedAt = entry.at;
      break;
    case 'model.attempt_failed':
      response(timeline, entry.responseIndex).failures.push(entry.error);
      break;
    case 'tool.attempt_started': {
      const c = call(timeline, entry.toolCallId);
      c?.attempts.push({ attempt: entry.attempt, startedAt: entry.at, outcome: 'running' });
      break;
    }
    case 'tool.attempt_finished': {
      const attempt = call(timeline, entry.toolCallId)?.attempts.findLast((a) => a.attempt === entry.attempt);
      if (attempt) Object.assign(attempt, { finishedAt: entry.at, outcome: outcomeOf(entry.result.status) });
      break;
    }
    case 'tool.attempt_not_started': {
      // Its worker could not read it (a key it lacks): it never ran, and will be tried again.
      const c = call(timeline, entry.toolCallId);
      const attempt = c?.attempts.findLast((a) => a.attempt === entry.attempt && a.outcome === 'running');
      if (attempt)
        Object.assign(attempt, { finishedAt: attempt.startedAt, outcome: 'not-started', lost: entry.detail });
      break;
    }
    case 'tool.attempt_lost': {
      const attempt = call(timeline, entry.toolCallId)?.attempts.findLast((a) => a.attempt === entry.attempt);
      if (attempt) Object.assign(attempt, { outcome: 'interrupted', lost: entry.detail ?? 'lost' });
      break;
    }
    case 'tool.approval_requested': {
      const c = call(timeline, entry.toolCallId);
      if (c) Object.assign(c, { waiting: true, waitingSince: entry.at });
      break;
    }
    case 'tool.approval_decided': {
      const c = call(timeline, entry.toolCallId);
      if (c) Object.assign(c, { waiting: false, decision: entry });
      break;
    }
    case 'tool.completed': {
      const c = call(timeline, entry.toolCallId);
      // A background call's placeholder result: it runs on, and its output is delivered later.
      if (c?.background && c.attempts.length > 0) {
        c.inBackground = true;
        break;
      }
      if (c) {
        c.output = entry.output;
        c.waiting = false;
        // An attempt still open when its call got its output did not finish: the turn stopped it.
        for (const a of c.attempts) if (a.outcome === 'running') a.outcome = 'interrupted';
      }
      break;
    }
    case 'background.delivered':
      for (const delivery of entry.deliveries) {
        const c = call(timeline, delivery.toolCallId);
        if (!c) continue;
        c.output = delivery.output;
        c.inBackground = false;
        for (const a of c.attempts) if (a.outcome === 'running') a.outcome = 'interrupted';
      }
      break;
    case 'approval.granted':
      timeline.grants = [...old.grants.filter((g) => g.grantId !== entry.grant.grantId), entry.grant];
      break;
    case 'approval.revoked':
      timeline.grants = old.grants.filter((g) => g.grantId !== entry.grantId);
      break;
    case 'turn.finished':
      // `output`: the checked value of a turn asked for a structured answer.
      timeline.finished = { status: entry.status, reason: entry.reason, output: entry.output };
      break;
  }
  return timeline;
}

function outcomeOf(status) {
  return status === 'needs-approval' ? 'waiting' : status;
}

/** The timeline after a `state` event: waves, approvals and grants in force as the turn itself says. */
export function withState(old, state) {
  const calls = old.calls.map((c) => {
    const view = state.calls.find((v) => v.toolCallId === c.toolCallId);
    if (!view) return c;
    return {
      ...c,
      wave: view.wave,
      waiting: view.phase === 'awaiting-approval',
      phase: view.phase,
      approval: view.approval,
    };
  });
  // The turn's own word on its grants (a feed that began late lacks the entries that gave some).
  return { ...old, calls, state, grants: state.grants ?? [] };
}

/** The timeline after a `live` event: the response's text as it streams. */
export function withLive(old, live) {
  if (live.channel && live.channel !== 'text') return old;
  const responses = old.responses.map((r) => ({ ...r }));
  const timeline = { ...old, responses };
  const r = response(timeline, live.responseIndex);
  if (r.recorded) return old;
  if (live.kind === 'restart') Object.assign(r, { text: '', streaming: true });
  if (live.kind === 'gap')
    Object.assign(r, { text: `${r.text.slice(0, live.offset)}${'·'.repeat(live.length)}` });
  if (live.kind === 'delta')
    Object.assign(r, { text: `${r.text.slice(0, live.offset)}${live.delta}`, streaming: true });
  return timeline;
}

/** A call's outcome as one word: what colours its bar. */
export function callOutcome(c) {
  if (c.output) return c.output.status;
  if (c.waiting) return 'waiting';
  if (c.attempts.some((a) => a.outcome === 'running')) return 'running';
  // Finished: its output is recorded after those of the calls before it (outputs go in batch
  // order), so until then its last attempt says how it went. An ok attempt is never retried.
  const last = c.attempts.at(-1);
  if (last && (c.phase === 'done' || last.outcome === 'ok')) return last.outcome;
  if (c.phase === 'retry-wait') return 'retrying';
  return 'pending';
}

/**
 * The calls of one response in waves (numbered from 0), as the engine planned them. A call whose
 * wave is not known (the feed began after the turn's first entries, which the plan needs) goes
 * in a group of its own, `wave: undefined`, after the known ones.
 */
export function wavesOf(timeline, responseIndex) {
  const groups = new Map();
  for (const c of timeline.calls.filter((c) => c.responseIndex === responseIndex))
    groups.set(c.wave, [...(groups.get(c.wave) ?? []), c]);
  const order = (wave) => (wave === undefined ? Number.POSITIVE_INFINITY : wave);
  return [...groups.entries()]
    .sort(([a], [b]) => order(a) - order(b))
    .map(([wave, calls]) => ({ wave, calls }));
}
