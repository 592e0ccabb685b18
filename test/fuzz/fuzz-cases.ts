import type { FuzzCase, FuzzHttpReply, FuzzLabel, FuzzReply, FuzzStreamReply } from './fuzz-case';
import { FuzzRandom } from './fuzz-random';

/** How often each kind of reply comes up. Faults outweigh good answers: they are what is tested. */
const replyWeights: Record<FuzzLabel, number> = {
  answer: 8,
  'tool-calls': 20,
  'garbage-chunk': 8,
  'bad-json': 6,
  'wrong-shape': 5,
  'stream-error-transient': 4,
  'stream-error-fatal': 2,
  reset: 8,
  'cut-mid-arguments': 8,
  'clean-end-without-finish': 8,
  'http-400': 3,
  'http-429': 5,
  'http-5xx': 6,
};

type CallKind =
  | 'read'
  | 'echo'
  | 'unknown-tool'
  | 'invalid-json'
  | 'schema-mismatch'
  | 'not-an-object'
  | 'huge';

const callWeights: Record<Exclude<CallKind, 'huge'>, number> = {
  read: 5,
  echo: 3,
  'unknown-tool': 1.5,
  'invalid-json': 1.5,
  'schema-mismatch': 1,
  'not-an-object': 0.5,
};

/** The largest arguments a call carries: about the size a real model's file write reaches. */
const maxHugeArgumentChars = 1_048_576;

const base = {
  id: 'chatcmpl-fuzz',
  object: 'chat.completion.chunk',
  created: 1_700_000_000,
  model: 'fuzz-model',
};
const dataEvent = (payload: string) => `data: ${payload}\n\n`;
const chunkEvent = (chunk: object) => dataEvent(JSON.stringify({ ...base, ...chunk }));
const deltaEvent = (delta: object) => chunkEvent({ choices: [{ index: 0, delta, finish_reason: null }] });

/**
 * `count` fuzz cases for `seed`. Case `i` depends only on `(seed, i)`, so one case can be rebuilt
 * alone (`fuzzCase(seed, i)`) when replaying a failure, and any executor can be driven by the
 * same cases (the turn ids are unique per seed and index).
 */
export function* fuzzCases(seed: number, count: number): Generator<FuzzCase> {
  for (let index = 0; index < count; index++) yield fuzzCase(seed, index);
}

export function fuzzCase(seed: number, index: number): FuzzCase {
  const random = new FuzzRandom((seed ^ Math.imul(index + 1, 0x9e37_79b9)) >>> 0);
  const replies: FuzzReply[] = [];
  const length = random.int(1, 5);
  // One case in twenty carries a huge call (its first), never more: a megabyte of arguments moves
  // through the whole stack several times per turn.
  const budget = { huge: random.chance(0.05) };
  for (let r = 0; r < length; r++) {
    const label = random.weighted(replyWeights);
    replies.push(fuzzReply({ random, label, tag: `${index}.${r}`, budget }));
    if (label === 'answer') break;
  }
  return { seed, index, turnId: `fuzz-${seed}-${index}`, input: `fuzz case ${index}`, replies };
}

/** The reply a turn gets once its script ran out: a plain final answer, so the turn ends. */
export function closingAnswer(turnId: string): FuzzStreamReply {
  const text = `closing answer for ${turnId}`;
  return {
    kind: 'stream',
    label: 'answer',
    expect: 'answer',
    names: text,
    text,
    events: [
      deltaEvent({ role: 'assistant', content: '' }),
      deltaEvent({ content: text }),
      chunkEvent({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
      dataEvent('[DONE]'),
    ],
    ending: { kind: 'complete' },
    calls: [],
  };
}

function fuzzReply({
  random,
  label,
  tag,
  budget,
}: {
  random: FuzzRandom;
  label: FuzzLabel;
  tag: string;
  budget: { huge: boolean };
}): FuzzReply {
  switch (label) {
    case 'http-400':
      return httpReply(label, 400, `fuzz-400-${tag} invalid request`, 'fatal', {});
    case 'http-429': {
      const retryAfter = random.pick(['ms', 'zero', 'none'] as const);
      const ms = random.int(1, 30);
      const headers: Record<string, string> =
        retryAfter === 'ms'
          ? { 'retry-after-ms': String(ms) }
          : retryAfter === 'zero'
            ? { 'retry-after': '0' }
            : {};
      return {
        ...httpReply(label, 429, `fuzz-429-${tag} rate limited`, 'retryable', headers),
        ...(retryAfter === 'ms' ? { retryAfterMs: ms } : {}),
      };
    }
    case 'http-5xx': {
      const status = random.pick([500, 502, 503, 504]);
      const reply = httpReply(label, status, `fuzz-${status}-${tag} upstream trouble`, 'retryable', {});
      // Proxies answer 502/504 with an empty body: the status alone must say what happened.
      return random.chance(0.3) ? { ...reply, body: undefined, names: `HTTP ${status}` } : reply;
    }
    default:
      return streamReply({ random, label, tag, budget });
  }
}

function httpReply(
  label: FuzzLabel,
  status: number,
  message: string,
  expect: 'retryable' | 'fatal',
  headers: Record<string, string>,
): FuzzHttpReply {
  return {
    kind: 'http-error',
    label,
    expect,
    names: message,
    status,
    body: {
      error: {
        message,
        type: status === 400 ? 'invalid_request_error' : 'server_error',
        param: null,
        code: null,
      },
    },
    headers,
  };
}

function streamReply({
  random,
  label,
  tag,
  budget,
}: {
  random: FuzzRandom;
  label: FuzzLabel;
  tag: string;
  budget: { huge: boolean };
}): FuzzStreamReply {
  const callCount =
    label === 'answer'
      ? 0
      : label === 'tool-calls' || label === 'cut-mid-arguments'
        ? random.int(1, 3)
        : random.int(0, 2);
  const calls = Array.from({ length: callCount }, (_, c) => fuzzCall({ random, tag: `${tag}.${c}`, budget }));
  // A repeated id: the provider path must keep both calls (see the wire test).
  const ids = calls.map((_, c) => `call_${tag.replace(/\./g, '_')}_${c}`);
  for (let c = 1; c < ids.length; c++) {
    const previous = ids[c - 1];
    if (previous !== undefined && random.chance(0.1)) ids[c] = previous;
  }

  const text = random.chance(0.6) ? `text ${tag} ${random.pick(['alpha', 'beta', 'gamma'])}` : '';
  const events: string[] = [deltaEvent({ role: 'assistant', content: '' })];
  const maybeEmptyChoices = () => {
    if (random.chance(0.1)) events.push(chunkEvent({ choices: [] }));
  };
  if (random.chance(0.2))
    for (const piece of random.split(`thinking ${tag}`, 3))
      events.push(deltaEvent({ reasoning_content: piece }));
  for (const piece of random.split(text, 4)) if (piece !== '') events.push(deltaEvent({ content: piece }));
  maybeEmptyChoices();
  // Where each call's argument pieces start and end in `events` (for a cut mid-arguments).
  const argumentSpans: { from: number; to: number }[] = [];
  for (const [c, call] of calls.entries()) {
    const pieces = call.kind === 'huge' ? random.split(call.arguments, 8) : random.split(call.arguments, 6);
    const from = events.length;
    for (const [n, piece] of pieces.entries()) {
      const fn = n === 0 ? { name: call.name, arguments: piece } : { arguments: piece };
      events.push(
        deltaEvent({
          tool_calls: [{ index: c, ...(n === 0 ? { id: ids[c], type: 'function' } : {}), function: fn }],
        }),
      );
    }
    argumentSpans.push({ from, to: events.length });
    maybeEmptyChoices();
  }
  const finishAt = events.length;
  const finishReason = calls.length > 0 ? 'tool_calls' : random.pick(['stop', 'stop', 'length']);
  events.push(chunkEvent({ choices: [{ index: 0, delta: {}, finish_reason: finishReason }] }));
  if (random.chance(0.5))
    events.push(
      chunkEvent({ choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } }),
    );
  // `[DONE]` is OpenAI's; many compatible servers end after the finish chunk without it.
  if (random.chance(0.8)) events.push(dataEvent('[DONE]'));

  const shaped = { calls: calls.map(({ name, arguments: args }) => ({ name, arguments: args })), text };
  const insert = (payload: string) => {
    events.splice(random.int(1, finishAt), 0, dataEvent(payload));
  };
  const faulty = (expect: 'retryable' | 'fatal', names: string): FuzzStreamReply => ({
    kind: 'stream',
    label,
    expect,
    names,
    events,
    ending: { kind: 'complete' },
    ...shaped,
  });
  const cut = (kind: 'reset' | 'clean-end', afterEvents: number): FuzzStreamReply => ({
    ...faulty('retryable', kind === 'reset' ? 'connection lost' : 'ended without a finish reason'),
    ending: { kind, afterEvents },
  });

  switch (label) {
    case 'garbage-chunk': {
      const garbage = `fuzz-garbage-${tag} ${randomJunk(random)}`;
      insert(garbage);
      return faulty('retryable', `fuzz-garbage-${tag}`);
    }
    case 'bad-json':
      insert(
        `{"id":"chatcmpl-fuzz","choices":[{"index":0,"delta":{"content":"fuzz-badjson-${tag}"${random.pick(['', '}', ',', '}]'])}`,
      );
      return faulty('retryable', `fuzz-badjson-${tag}`);
    case 'wrong-shape':
      insert(JSON.stringify({ choices: `fuzz-shape-${tag}` }));
      return faulty('retryable', `fuzz-shape-${tag}`);
    case 'stream-error-transient':
      insert(
        JSON.stringify({
          error: { message: `fuzz-overloaded-${tag}`, type: 'server_error', param: null, code: null },
        }),
      );
      return faulty('retryable', `fuzz-overloaded-${tag}`);
    case 'stream-error-fatal':
      insert(
        JSON.stringify({
          error: { message: `fuzz-invalid-${tag}`, type: 'invalid_request_error', param: null, code: null },
        }),
      );
      return faulty('fatal', `fuzz-invalid-${tag}`);
    case 'reset':
      if (random.chance(0.2))
        return { ...faulty('retryable', 'connection lost'), ending: { kind: 'hang-up' } };
      return cut('reset', random.int(0, finishAt));
    case 'clean-end-without-finish':
      return cut('clean-end', random.int(0, finishAt));
    case 'cut-mid-arguments': {
      const span = random.pick(argumentSpans);
      // After the call's first piece (its name is out) and before its last (arguments unfinished).
      const at = span.to - span.from > 1 ? random.int(span.from + 1, span.to - 1) : span.from;
      return cut(random.chance(0.5) ? 'reset' : 'clean-end', at);
    }
    default: {
      const expect = calls.length > 0 ? 'calls' : 'answer';
      return { ...faulty('retryable', text), expect, label: calls.length > 0 ? 'tool-calls' : 'answer' };
    }
  }
}

interface FuzzCall {
  kind: CallKind;
  name: string;
  arguments: string;
}

function fuzzCall({
  random,
  tag,
  budget,
}: {
  random: FuzzRandom;
  tag: string;
  budget: { huge: boolean };
}): FuzzCall {
  const kind = budget.huge ? 'huge' : random.weighted(callWeights);
  budget.huge = false;
  // Paths and numbers unique per call: the same call twice with the same result is a loop.
  const path = `f${tag}.txt`;
  switch (kind) {
    case 'read':
      return { kind, name: 'read_file', arguments: JSON.stringify({ path }) };
    case 'echo':
      return { kind, name: 'echo', arguments: JSON.stringify({ n: Number(tag.replace(/\./g, '')) }) };
    case 'unknown-tool':
      return {
        kind,
        name: random.pick(['delete_everything', 'constructor', '__proto__']),
        arguments: JSON.stringify({ path }),
      };
    case 'invalid-json':
      return {
        kind,
        name: 'read_file',
        arguments: random.pick([`{"path": ${path}}`, `{"path":"${path}",}`, `{path:"${path}"}`]),
      };
    case 'schema-mismatch':
      return {
        kind,
        name: random.pick(['read_file', 'echo']),
        arguments: JSON.stringify({ path: 7, n: `n${tag}` }),
      };
    case 'not-an-object':
      return { kind, name: 'read_file', arguments: JSON.stringify([path]) };
    case 'huge': {
      const size = random.int(100_000, maxHugeArgumentChars);
      return { kind, name: 'read_file', arguments: JSON.stringify({ path: `${path}:${'x'.repeat(size)}` }) };
    }
  }
}

/** Printable junk with the characters that trip parsers (quotes, braces, colons), never a newline. */
function randomJunk(random: FuzzRandom): string {
  const alphabet = 'abc{}[]":,<>/\\ 0123456789ü€\t';
  const length = random.int(0, random.chance(0.1) ? 5_000 : 60);
  let out = '';
  for (let i = 0; i < length; i++) out += random.pick([...alphabet]);
  return out;
}
