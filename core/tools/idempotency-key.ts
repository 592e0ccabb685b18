/**
 * Idempotency keys, derived from the turn id and the call id (or the model request's index) so
 * they are stable across retries, recoveries and hosts.
 *
 * Revision 1 joined the raw parts with `/`, which is not injective: turn `X` call `p/q` and turn
 * `X/p` call `q` both gave `X/p/q`, and a call with id `model/0` collided with the model request.
 * Revision 2 escapes `%` and `/` in each part, so a key splits back into exactly its parts, and
 * a tool key has two parts where a model key has three: no two different sources share a key.
 * Parts without those characters are unchanged, so ordinary keys read the same in both.
 * A turn keeps the revision it started with (recorded in `turn.started`).
 */
export function toolCallKey({
  revision,
  turnId,
  toolCallId,
}: {
  revision: number;
  turnId: string;
  toolCallId: string;
}): string {
  if (revision < 2) return `${turnId}/${toolCallId}`;
  return `${escapePart(turnId)}/${escapePart(toolCallId)}`;
}

export function modelRequestKey({
  revision,
  turnId,
  responseIndex,
}: {
  revision: number;
  turnId: string;
  responseIndex: number;
}): string {
  if (revision < 2) return `${turnId}/model/${responseIndex}`;
  return `${escapePart(turnId)}/model/${responseIndex}`;
}

function escapePart(part: string): string {
  // The common case has neither character: no scan beyond two indexOf calls, no allocation.
  if (part.indexOf('%') < 0 && part.indexOf('/') < 0) return part;
  return part.replace(/%/g, '%25').replace(/\//g, '%2F');
}
