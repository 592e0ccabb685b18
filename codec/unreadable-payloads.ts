import type { Payload, PayloadCodec, SerializationContext } from '@temporalio/common';
import { PayloadKeyMissingError } from './payload-key-missing-error';

/** A payload this process could not open: whose it was (when the SDK says) and the key it needs. */
export interface UnreadablePayload {
  keyId: string;
  /** The codec's words for it (which key, and whether this process holds any). */
  why: string;
  /** The workflow that owns the payload, when the SDK passes its serialization context. */
  workflowId?: string;
}

/**
 * `codec` that also tells `onUnreadable` of each payload it cannot open, with the workflow it
 * belongs to, then fails as `codec` did: a worker learns which of its workflows it cannot read
 * (and may act: fleet health is soft state, started afresh) without an extra request.
 */
export class ReportingCodec implements PayloadCodec {
  constructor(
    private readonly codec: PayloadCodec,
    private readonly onUnreadable: (payload: UnreadablePayload) => void,
  ) {}

  encode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    return this.codec.encode(payloads, context);
  }

  async decode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    try {
      return await this.codec.decode(payloads, context);
    } catch (error) {
      if (PayloadKeyMissingError.isInstance(error)) {
        const workflowId = context?.type === 'workflow' ? context.workflowId : undefined;
        try {
          this.onUnreadable({
            keyId: error.keyId,
            why: error.message,
            ...(workflowId ? { workflowId } : {}),
          });
        } catch {
          // A listener's failure is not the codec's.
        }
      }
      throw error;
    }
  }
}
