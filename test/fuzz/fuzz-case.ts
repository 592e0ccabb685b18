/**
 * One fuzz turn: the replies its model requests get, in order, whatever response they are for
 * (a retry takes the next reply like a new request does). When they run out, the server answers
 * with a plain final text, so every turn has an end.
 */
export interface FuzzCase {
  seed: number;
  index: number;
  turnId: string;
  input: string;
  replies: FuzzReply[];
}

/** What a reply is, for the outcome counts and the failure messages. */
export type FuzzLabel =
  | 'answer'
  | 'tool-calls'
  | 'garbage-chunk'
  | 'bad-json'
  | 'wrong-shape'
  | 'stream-error-transient'
  | 'stream-error-fatal'
  | 'reset'
  | 'cut-mid-arguments'
  | 'clean-end-without-finish'
  | 'http-400'
  | 'http-429'
  | 'http-5xx';

/**
 * How the provider path must take a reply: `answer` ends the turn, `calls` runs them and asks
 * again, `retryable` is asked again (or, once calls were accepted, carried on from), `fatal` fails
 * the turn at once.
 */
export type FuzzExpectation = 'answer' | 'calls' | 'retryable' | 'fatal';

interface FuzzReplyBase {
  label: FuzzLabel;
  expect: FuzzExpectation;
  /** Text a turn failure caused by this reply must contain in its reason. */
  names: string;
  /** The wait a retry after this reply honours (its retry-after), if it sets one. */
  retryAfterMs?: number;
}

export interface FuzzHttpReply extends FuzzReplyBase {
  kind: 'http-error';
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

export interface FuzzStreamReply extends FuzzReplyBase {
  kind: 'stream';
  /** Whole server-sent events as written on the wire. */
  events: string[];
  /**
   * How the response ends: after every event, by a reset, or closed normally part-way — or the
   * server hangs up on the request before answering at all.
   */
  ending: { kind: 'complete' | 'hang-up' } | { kind: 'reset' | 'clean-end'; afterEvents: number };
  /** The calls the model asked for in a complete stream (name, and the arguments as sent). */
  calls: { name: string; arguments: string }[];
  /** The response's text. */
  text: string;
}

export type FuzzReply = FuzzHttpReply | FuzzStreamReply;

/** A request the fuzz server answered: for which response, and with which reply. */
export interface ServedRequest {
  responseIndex: number;
  reply: FuzzReply;
  /** The reply came from the script (false: the closing answer after the script ran out). */
  scripted: boolean;
}
