import type { LiveChannelName } from '../core';

/** An open text or reasoning part as the client holds it: how much it shows, and a hash of that. */
export interface OpenPartPosition {
  channel: LiveChannelName;
  id: string;
  /** Characters shown; -1 for a part never started (a gap came first). */
  shown: number;
  /** `textHash` of the characters shown. */
  hash: number;
  /** Text was missed: the part cannot be continued, it is retracted at the response's end. */
  broken: boolean;
}

/** What the mapper keeps beyond the journal: the state the live text left (see `TurnUiMapper.position`). */
export interface MapperPosition {
  /** The response being asked for (-1 before the first). */
  responseIndex: number;
  /** Parts numbered so far (a new part takes the next number). */
  parts: number;
  /** Chunks of the current response's held calls sent; -1 once released (nothing is held). */
  heldSent: number;
  open: OpenPartPosition[];
  /** A part whose end was sent and whose `data-retracted` was not yet. */
  retracting?: { channel: LiveChannelName; id: string };
}

/**
 * Where a UI message stream stands after one of its chunks: enough to send, from any server
 * instance, exactly what follows it (the SSE event id, which a client that reconnects sends back as
 * `Last-Event-ID`). The journal's entries up to `seq` are in the client's message, and `k` chunks of
 * the next entry's; the rest is what the live text left, which the journal does not say.
 */
export interface UiStreamPosition extends MapperPosition {
  seq: number;
  k: number;
  /** The stream ended at a pause reached by entry `seq` (a resume does not end at it again). */
  paused: boolean;
  /** The message's finish was sent: nothing follows. */
  finished: boolean;
}

const channelCode: Record<LiveChannelName, string> = { text: 't', reasoning: 'r' };
const channelOf: Record<string, LiveChannelName> = { t: 'text', r: 'reasoning' };
const partId = /^(?:text|reasoning)-\d+-\d+$/;

/**
 * The position as a short SSE id: `1.seq.k.response.parts.held.flags`, then each open part as
 * `channel~id~shown~hash[~b]` and a pending retraction as `!channel~id`. Ids are ASCII with no line
 * breaks, as SSE needs.
 */
export function encodePosition(position: UiStreamPosition): string {
  const flags = `${position.paused ? 'p' : ''}${position.finished ? 'f' : ''}` || '-';
  const fields = [
    '1',
    position.seq,
    position.k,
    position.responseIndex,
    position.parts,
    position.heldSent,
    flags,
    ...position.open.map(
      (part) =>
        `${channelCode[part.channel]}~${part.id}~${part.shown}~${part.hash.toString(36)}${part.broken ? '~b' : ''}`,
    ),
    ...(position.retracting
      ? [`!${channelCode[position.retracting.channel]}~${position.retracting.id}`]
      : []),
  ];
  return fields.join('.');
}

/** A position from an event id this stream made; a message saying what is wrong otherwise. */
export function decodePosition(id: string): UiStreamPosition | { invalid: string } {
  const invalid = { invalid: `${JSON.stringify(id.slice(0, 80))} is not an event id of this stream` };
  if (id.length > 1024) return invalid;
  const [version, ...rest] = id.split('.');
  if (version !== '1' || rest.length < 6) return invalid;
  const numbers = rest.slice(0, 5).map((field) => (/^-?\d{1,15}$/.test(field) ? Number(field) : Number.NaN));
  const [seq, k, responseIndex, parts, heldSent] = numbers;
  if (
    seq === undefined ||
    k === undefined ||
    responseIndex === undefined ||
    parts === undefined ||
    heldSent === undefined ||
    numbers.some((n) => Number.isNaN(n)) ||
    seq < 0 ||
    k < 0 ||
    parts < 0
  )
    return invalid;
  const flags = rest[5] ?? '';
  if (!/^(?:-|p?f?)$/.test(flags) || flags === '') return invalid;
  const position: UiStreamPosition = {
    seq,
    k,
    responseIndex,
    parts,
    heldSent,
    open: [],
    paused: flags.includes('p'),
    finished: flags.includes('f'),
  };
  for (const field of rest.slice(6)) {
    const retracting = /^!([tr])~([a-z]+-\d+-\d+)$/.exec(field);
    if (retracting?.[1] && retracting[2]) {
      const channel = channelOf[retracting[1]];
      if (!channel || position.retracting) return invalid;
      position.retracting = { channel, id: retracting[2] };
      continue;
    }
    const [code, partIdText, shownText, hashText, broken, ...extra] = field.split('~');
    const channel = code === undefined ? undefined : channelOf[code];
    if (
      !channel ||
      partIdText === undefined ||
      !partId.test(partIdText) ||
      !/^-?\d{1,15}$/.test(shownText ?? '') ||
      !/^[0-9a-z]{1,7}$/.test(hashText ?? '') ||
      (broken !== undefined && broken !== 'b') ||
      extra.length > 0 ||
      position.open.some((part) => part.channel === channel)
    )
      return invalid;
    position.open.push({
      channel,
      id: partIdText,
      shown: Number(shownText),
      hash: Number.parseInt(hashText ?? '', 36),
      broken: broken === 'b',
    });
  }
  return position;
}
