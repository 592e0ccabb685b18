import { z } from 'zod';
import { DurableTurnsError } from '../errors/durable-turns-error';
import {
  type ApprovalGrant,
  approvalGrantSchema,
  type GrantRevocation,
  maxGrantsInForce,
} from '../schema/approval-grant';
import { userMessageSchema } from '../schema/messages';
import {
  type BranchFork,
  branchForkSchema,
  type ConversationOrigin,
  conversationOriginSchema,
} from './conversation-origin';
import { type MessageReceipt, type SendArgs, sendArgsSchema } from './conversation-schema';
import { conversationTurnId } from './conversation-turn-id';

/**
 * A conversation's queue of turns, as plain data both hosts keep (the conversation workflow in its
 * state and across continue-as-new, the in-process host in its journal) and change only through the
 * functions below, which say what the host must do: start a turn, cancel one, hand a message to one.
 * One turn runs at a time; what arrives meanwhile waits, steers or interrupts as its policy says.
 */
const waitingMessageSchema = z.object({
  messageId: z.string(),
  message: userMessageSchema,
  /** Arrival order across the conversation: messages that end up in one turn keep it. */
  seq: z.number().int().nonnegative(),
});
export type WaitingMessage = z.infer<typeof waitingMessageSchema>;

const receiptRecordSchema = z.object({
  messageId: z.string(),
  status: z.enum(['started', 'waiting', 'steered', 'rejected', 'dropped', 'blocked']),
  turnId: z.string().optional(),
  /** Why a hook blocked it. */
  reason: z.string().optional(),
});

export const conversationStateSchema = z.object({
  conversationId: z.string(),
  /**
   * Which conversation of this id it is: a deleted conversation's id can be used again, and what
   * was read of the old one's turns (`EarlierTurns`) must not be taken for the new one's. Absent in
   * conversations that had continued as new before it existed (a first run gets one on replay).
   */
  incarnation: z.string().optional(),
  /** A branch: the turns of other conversations that come before its own (see `ConversationOrigin`). */
  origin: conversationOriginSchema.optional(),
  /** A branch whose turn 1 is a fork of a turn of its source (see `BranchFork`), until turn 1 starts. */
  firstTurnFork: branchForkSchema.optional(),
  closed: z.boolean(),
  /** Turns started so far; the next is number `turnCount + 1`. */
  turnCount: z.number().int().nonnegative(),
  /** Messages received so far (the next message's `seq`). */
  received: z.number().int().nonnegative(),
  running: z
    .object({
      turnId: z.string(),
      /**
       * The messages it started with: a host that lost the turn before it wrote a word of it (an
       * in-process host that crashed just after recording the start) starts it again from these.
       */
      messages: z.array(waitingMessageSchema).optional(),
      /** A branch's turn 1: the fork it began with, to start it again from (see `turnStartOf`). */
      fork: branchForkSchema.optional(),
      /** An interrupt asked for its cancel: nothing more is handed to it. */
      cancelling: z.boolean(),
      /** Steers handed to it; those it had not recorded when it ended start the next turn. */
      steers: z.array(waitingMessageSchema),
      /** The conversation's grants it started with (their ids): its end says which are still in force. */
      grantsGiven: z.array(z.string()).optional(),
      /** Grants revoked in the conversation while it ran: its end does not bring them back. */
      grantsRevoked: z.array(z.string()).optional(),
    })
    .optional(),
  /** Messages that start the next turn together: interrupts, and steers that came too late. */
  next: z.array(waitingMessageSchema),
  /** Enqueued messages, a turn each, after `next`. */
  queue: z.array(waitingMessageSchema),
  /** Where the latest messages stand (at most `receiptLimit`, oldest first): a retried send is answered from here. */
  receipts: z.array(receiptRecordSchema),
  /** "Always allow" for every later turn (grants of scope `conversation`; see `ApprovalGrant`). Absent: none. */
  grants: z.array(approvalGrantSchema).optional(),
});
export type ConversationState = z.infer<typeof conversationStateSchema>;

/**
 * How many messages' receipts a conversation keeps to recognise a retried send. A retry comes
 * seconds after its first try, not a thousand messages later; the bound keeps the state (carried
 * across continue-as-new) small: ~100 bytes a receipt.
 */
export const receiptLimit = 1_000;

export type ConversationAction =
  | {
      kind: 'start-turn';
      turnId: string;
      turnNumber: number;
      messages: WaitingMessage[];
      /** The conversation's grants the turn starts with (absent: none). */
      grants?: ApprovalGrant[];
      /** A branch's turn 1: the fork it begins with, its messages the user's next word after it. */
      fork?: BranchFork;
    }
  | { kind: 'cancel-turn'; turnId: string }
  | { kind: 'steer'; turnId: string; message: WaitingMessage }
  /** A grant or its end, given in the conversation, reaches the running turn too. */
  | { kind: 'grant'; turnId: string; grant: ApprovalGrant }
  | { kind: 'revoke'; turnId: string; revocation: GrantRevocation };

export interface ConversationStep {
  actions: ConversationAction[];
}

/** Why a closed conversation refuses a message: the same words from every host. */
export function closedRefusal(conversationId: string): ConversationRefusedError {
  return new ConversationRefusedError(
    `conversation ${conversationId} is closed: it takes no more messages`,
    'conversation-closed',
  );
}

/** Why a call that needs an existing conversation (a delete, a send with no turn options) was refused. */
export function unknownConversation(conversationId: string, hint = ''): ConversationRefusedError {
  return new ConversationRefusedError(
    `no conversation ${conversationId}${hint ? `: ${hint}` : ''}`,
    'conversation-not-found',
  );
}

/** Why a `reject` was refused while `turnId` ran: the same words from every host. */
export function busyRefusal(
  conversationId: string,
  { messageId, turnId }: { messageId: string; turnId: string },
): ConversationRefusedError {
  return new ConversationRefusedError(
    `conversation ${conversationId} is running turn ${turnId}; message ${messageId} was rejected (policy reject)`,
    'conversation-busy',
  );
}

/** Why a hook blocked a message: the same words from every host. */
export function blockedRefusal(
  conversationId: string,
  { messageId, reason }: { messageId: string; reason: string },
): ConversationRefusedError {
  return new ConversationRefusedError(
    `conversation ${conversationId} refused message ${messageId}: ${reason}`,
    'message-blocked',
  );
}

/**
 * Sending to a closed conversation, a `reject` while a turn runs, or a message a hook blocked:
 * `code` says which.
 */
export class ConversationRefusedError extends DurableTurnsError {
  constructor(
    message: string,
    code:
      | 'conversation-closed'
      | 'conversation-busy'
      | 'message-blocked'
      | 'conversation-not-found'
      | 'conversation-exists',
  ) {
    super(message, { code });
    this.name = 'ConversationRefusedError';
  }
}

export function newConversation(
  conversationId: string,
  incarnation?: string,
  origin?: ConversationOrigin,
  firstTurnFork?: BranchFork,
): ConversationState {
  return {
    conversationId,
    ...(incarnation ? { incarnation } : {}),
    ...(origin && origin.length > 0 ? { origin } : {}),
    ...(firstTurnFork ? { firstTurnFork } : {}),
    closed: false,
    turnCount: 0,
    received: 0,
    next: [],
    queue: [],
    receipts: [],
  };
}

/**
 * Records a message and says what to do with it. A message id seen before (within `receiptLimit`)
 * changes nothing: its receipt says where it stands now. A `reject` while a turn runs is recorded
 * (so its retry is refused the same way) and returned as a `rejected` receipt.
 * @throws ConversationRefusedError when the conversation is closed.
 */
export function sendMessage(
  state: ConversationState,
  args: SendArgs,
): ConversationStep & { receipt: MessageReceipt; duplicate: boolean } {
  const { messageId, message, policy } = sendArgsSchema.parse(args);
  const seen = receiptOf(state, messageId);
  if (seen) return { receipt: seen, duplicate: true, actions: [] };
  if (state.closed) throw closedRefusal(state.conversationId);
  const waiting: WaitingMessage = { messageId, message, seq: state.received };
  state.received += 1;
  const running = state.running;
  const actions: ConversationAction[] = [];
  if (!running) {
    actions.push(startTurn(state, [waiting]));
  } else if (policy === 'reject') {
    record(state, { messageId, status: 'rejected', turnId: running.turnId });
  } else if (policy === 'steer' && !running.cancelling) {
    running.steers.push(waiting);
    record(state, { messageId, status: 'steered', turnId: running.turnId });
    actions.push({ kind: 'steer', turnId: running.turnId, message: waiting });
  } else if (policy === 'enqueue') {
    state.queue.push(waiting);
    record(state, { messageId, status: 'waiting' });
  } else {
    // An interrupt, or a steer while the turn is being cancelled: the next turn is theirs.
    state.next.push(waiting);
    record(state, { messageId, status: 'waiting' });
    if (policy === 'interrupt' && !running.cancelling) {
      running.cancelling = true;
      actions.push({ kind: 'cancel-turn', turnId: running.turnId });
    }
  }
  return { receipt: receiptOf(state, messageId) as MessageReceipt, duplicate: false, actions };
}

/**
 * The running turn ended (whatever its status). Steers it had not recorded (`recordedSteers` names
 * those it had) join the next turn, then the next turn starts: `next` together, else the first of
 * the queue. An end of a turn that is not the running one changes nothing.
 */
export function turnEnded(
  state: ConversationState,
  {
    turnId,
    recordedSteers,
    grants,
    grantsRevoked = [],
  }: {
    turnId: string;
    recordedSteers: readonly string[];
    /** The grants in force at its end (its result's); absent when it ended without a result. */
    grants?: readonly ApprovalGrant[] | undefined;
    /** The ids of the grants revoked in it. */
    grantsRevoked?: readonly string[] | undefined;
  },
): ConversationStep {
  const running = state.running;
  if (running?.turnId !== turnId) return { actions: [] };
  state.running = undefined;
  if (grants) keepGrantsOf(state, running, grants, grantsRevoked);
  const recorded = new Set(recordedSteers);
  const late = running.steers.filter((steer) => !recorded.has(steer.messageId));
  state.next = [...late, ...state.next].sort((a, b) => a.seq - b.seq);
  for (const { messageId } of late) record(state, { messageId, status: 'waiting' });
  if (state.closed) return { actions: [] };
  if (state.next.length > 0) {
    const messages = state.next;
    state.next = [];
    return { actions: [startTurn(state, messages)] };
  }
  const first = state.queue.shift();
  return { actions: first ? [startTurn(state, [first])] : [] };
}

/**
 * Closes the conversation: further sends are refused. Waiting messages are dropped (their receipts
 * say so); the running turn, if any, goes on to its end.
 */
export function closeConversation(state: ConversationState): { dropped: string[] } {
  state.closed = true;
  const dropped = [...state.next, ...state.queue].map((m) => m.messageId);
  state.next = [];
  state.queue = [];
  for (const messageId of dropped) record(state, { messageId, status: 'dropped' });
  return { dropped };
}

/**
 * Records a message that a hook refused (see `ConversationHooks`): it starts no turn, and a retried
 * send of it is refused the same way without asking the hooks again.
 */
export function blockMessage(
  state: ConversationState,
  { messageId, reason }: { messageId: string; reason: string },
): MessageReceipt {
  record(state, { messageId, status: 'blocked', reason });
  return { messageId, status: 'blocked', reason };
}

/** Where a message stands, if the conversation still remembers it. */
export function receiptOf(state: ConversationState, messageId: string): MessageReceipt | undefined {
  const found = state.receipts.find((r) => r.messageId === messageId);
  if (!found) return undefined;
  const { status, turnId = '' } = found;
  if (status === 'dropped') return { messageId, status };
  if (status === 'blocked') return { messageId, status, reason: found.reason ?? '' };
  if (status !== 'waiting') return { messageId, status, turnId };
  // Turns ahead of a waiting message: the running one, the next one, and the queue before it.
  const before = state.queue.findIndex((m) => m.messageId === messageId);
  const ahead = (state.running ? 1 : 0) + (before < 0 ? 0 : (state.next.length > 0 ? 1 : 0) + before);
  return { messageId, status: 'queued', ahead: Math.max(ahead, 1) };
}

function startTurn(state: ConversationState, messages: WaitingMessage[]): ConversationAction {
  state.turnCount += 1;
  const turnId = conversationTurnId(state.conversationId, state.turnCount);
  state.running = { turnId, messages, cancelling: false, steers: [] };
  for (const { messageId } of messages) record(state, { messageId, status: 'started', turnId });
  const action: ConversationAction = { kind: 'start-turn', turnId, turnNumber: state.turnCount, messages };
  const { firstTurnFork: fork, grants } = state;
  if (fork) {
    action.fork = fork;
    state.running.fork = fork;
    delete state.firstTurnFork;
  }
  if (!grants?.length) return action;
  state.running.grantsGiven = grants.map((g) => g.grantId);
  return { ...action, grants: [...grants] };
}

function record(state: ConversationState, receipt: z.infer<typeof receiptRecordSchema>): void {
  const index = state.receipts.findIndex((r) => r.messageId === receipt.messageId);
  if (index >= 0) state.receipts[index] = receipt;
  else state.receipts.push(receipt);
  // The oldest settled receipts go first: a waiting message's receipt is its place in line.
  while (state.receipts.length > receiptLimit) {
    const settled = state.receipts.findIndex((r) => r.status !== 'waiting');
    if (settled < 0) break;
    state.receipts.splice(settled, 1);
  }
}

/** At a turn's end: the grants it was given are as it reports them; the rest stay as they are. */
function keepGrantsOf(
  state: ConversationState,
  running: NonNullable<ConversationState['running']>,
  reported: readonly ApprovalGrant[],
  revokedInTurn: readonly string[],
): void {
  // Given at its start: as it reports them. Revoked in it (handed to it meanwhile too): gone.
  const given = new Set([...(running.grantsGiven ?? []), ...revokedInTurn]);
  const revoked = new Set(running.grantsRevoked ?? []);
  const kept = (state.grants ?? []).filter((g) => !given.has(g.grantId));
  const ids = new Set(kept.map((g) => g.grantId));
  for (const grant of reported)
    if (grant.scope === 'conversation' && !revoked.has(grant.grantId) && !ids.has(grant.grantId)) {
      kept.push(grant);
      ids.add(grant.grantId);
    }
  // A turn holds at most as many as a conversation: the newest beyond that are not carried on.
  if (kept.length > 0) state.grants = kept.slice(0, maxGrantsInForce);
  else delete state.grants;
}

/** A branch's id that is taken: a branch is a new conversation. */
export function branchTaken(conversationId: string): ConversationRefusedError {
  return new ConversationRefusedError(
    `conversation ${conversationId} exists already: a branch is a new conversation`,
    'conversation-exists',
  );
}
