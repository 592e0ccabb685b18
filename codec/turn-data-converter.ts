import type { DataConverter } from '@temporalio/common';
import { EncryptionCodec, type EncryptionCodecOptions } from './encryption-codec';
import { type EncryptionKeys, encryptionKeysFromEnv } from './encryption-keys';
import { KeylessCodec } from './keyless-codec';
import { ReportingCodec, type UnreadablePayload } from './unreadable-payloads';

/** What turns' data is encrypted with: keys (and options), `false` for none, or unset: the environment. */
export type TurnEncryption = EncryptionKeys | EncryptionCodecOptions | false | undefined;

/**
 * The data converter of every process that touches turns (workers, `TurnClient`, the CLI, the
 * dashboard): with keys, every payload is encrypted (workflow and activity inputs and results,
 * queries, updates, signals, memo, user metadata, failures' messages); without, payloads are
 * written as the SDK writes them, and one encrypted by a process with keys is refused naming its
 * key id (`KeylessCodec`). Unset reads `DURABLE_TURNS_ENCRYPTION_KEYS`. `onUnreadable` hears of
 * each payload this process cannot open, with the workflow it belongs to.
 */
export function turnDataConverter(
  encryption: TurnEncryption,
  { onUnreadable }: { onUnreadable?: (payload: UnreadablePayload) => void } = {},
): DataConverter {
  const options = resolveEncryption(encryption);
  const codec = options ? new EncryptionCodec(options) : new KeylessCodec();
  return {
    payloadCodecs: [onUnreadable ? new ReportingCodec(codec, onUnreadable) : codec],
    ...(options && { failureConverterPath: require.resolve('./encoding-failure-converter') }),
  };
}

export function resolveEncryption(encryption: TurnEncryption): EncryptionCodecOptions | undefined {
  if (encryption === false) return undefined;
  const given = encryption ?? encryptionKeysFromEnv();
  if (!given) return undefined;
  return 'keys' in given ? given : { keys: given };
}

/** `{ dataConverter }` to spread into a Temporal client's or worker's options. */
export function dataConverterOption(
  encryption: TurnEncryption,
  listeners: { onUnreadable?: (payload: UnreadablePayload) => void } = {},
): { dataConverter: DataConverter } {
  return { dataConverter: turnDataConverter(encryption, listeners) };
}
