import { createHmac } from 'node:crypto';
import type { ApprovalActivities } from '../contract/approval-activities';
import type { ApprovalEvent } from '../core/engine/approval-events';
import { canonicalJson } from '../core/tools/canonical-json';
import { type ApprovalKeys, approvalKeysVariable } from './approval-keys';
import { secretsMatch } from './secrets-match';

/**
 * How long a signature holds after `issuedAt`. A decision names its turn and call, and a call takes
 * one decision, so a captured signed decision (history shows update arguments to whoever reads it)
 * is refused anywhere else and again. A grant or revocation is different: once revoked, the same
 * signed grant would check again. The bound limits that window to minutes, while leaving room for
 * a busy workflow task and clocks that differ by a little.
 */
export const approvalSignatureMaxAgeMs = 10 * 60_000;
/** A signer's clock may run this far ahead of the worker's. */
export const approvalClockSkewMs = 60_000;

// Tells these MACs apart from anything else a key might ever sign.
const domain = 'durable-turns approval v1\n';

interface SignatureFields {
  issuedAt?: number;
  signature?: string;
}

/** The object that carries the signature: the decision, the grant or the revocation. */
function signedObject(event: ApprovalEvent): SignatureFields & object {
  if (event.kind === 'grant') return event.grant;
  const { kind: _kind, ...fields } = event;
  return fields;
}

/** What the MAC covers: the turn, the kind and every field but the signature (`issuedAt` included). */
function signedText({ turnId, event }: { turnId: string; event: ApprovalEvent }): string {
  const { signature: _signature, ...fields } = signedObject(event);
  return domain + canonicalJson({ turnId, kind: event.kind, fields });
}

const mac = (key: Buffer, text: string) => createHmac('sha256', key).update(text).digest('base64url');

/**
 * The event signed with the active key at `now`: its `issuedAt` and `signature` set. Its fields are
 * as JSON carries them (a `Date` becomes its string, `undefined` goes), so what the turn verifies is
 * what was signed.
 */
export function signApproval<E extends ApprovalEvent>({
  turnId,
  event,
  keys,
  now = Date.now(),
}: {
  turnId: string;
  event: E;
  keys: ApprovalKeys;
  now?: number;
}): E {
  const plain = withFields(JSON.parse(JSON.stringify(event)) as E, { issuedAt: now });
  const signature = `${keys.active.id}.${mac(keys.active.key, signedText({ turnId, event: plain }))}`;
  return withFields(plain, { signature });
}

function withFields<E extends ApprovalEvent>(event: E, fields: SignatureFields): E {
  return (
    event.kind === 'grant' ? { ...event, grant: { ...event.grant, ...fields } } : { ...event, ...fields }
  ) as E;
}

/** Why the event's signature does not hold for this turn now, or undefined when it does. */
export function verifyApproval({
  turnId,
  event,
  keys,
  now = Date.now(),
}: {
  turnId: string;
  event: ApprovalEvent;
  keys: ApprovalKeys | undefined;
  now?: number;
}): string | undefined {
  const { signature, issuedAt } = signedObject(event);
  if (signature === undefined || issuedAt === undefined) return 'it is not signed';
  if (!keys)
    return `this worker holds no approval keys to verify it with: give every worker of the task queue ${approvalKeysVariable}`;
  // Key ids may hold dots; base64url never does.
  const dot = signature.lastIndexOf('.');
  if (dot <= 0) return 'its signature is not `<key id>.<mac>`';
  const keyId = signature.slice(0, dot);
  const key = keys.byId.get(keyId);
  if (!key) return `it is signed with key id ${JSON.stringify(keyId)}, which this worker does not hold`;
  const presented = signature.slice(dot + 1);
  if (!secretsMatch({ presented, expected: mac(key.key, signedText({ turnId, event })) }))
    return 'its signature does not match it (altered, signed for another turn, or with another key)';
  if (now - issuedAt > approvalSignatureMaxAgeMs)
    return `it was signed ${Math.round((now - issuedAt) / 1000)} s ago; a signature holds ${approvalSignatureMaxAgeMs / 60_000} minutes`;
  if (issuedAt - now > approvalClockSkewMs)
    return `it was signed ${Math.round((issuedAt - now) / 1000)} s ahead of this worker's clock`;
  return undefined;
}

/** The worker's `verifyApproval` local activity, with its keys (none: every signed event is refused, saying why). */
export function approvalActivities(keys: ApprovalKeys | undefined): ApprovalActivities {
  return {
    verifyApproval: async ({ turnId, event }) => {
      const refused = verifyApproval({ turnId, event, keys });
      return refused === undefined ? {} : { refused };
    },
  };
}
