import type { DataConverter } from '@temporalio/common';
import { EncryptionCodec, type EncryptionCodecOptions } from './encryption-codec';
import { type EncryptionKeys, encryptionKeysFromEnv } from './encryption-keys';

/** What turns' data is encrypted with: keys (and options), `false` for none, or unset: the environment. */
export type TurnEncryption = EncryptionKeys | EncryptionCodecOptions | false | undefined;

/**
 * The data converter of every process that touches turns (workers, `TurnClient`, the CLI, the
 * dashboard): with keys, every payload is encrypted (workflow and activity inputs and results,
 * queries, updates, signals, memo, user metadata, failures' messages); without, undefined (the SDK's
 * default). Unset reads `DURABLE_TURNS_ENCRYPTION_KEYS`.
 */
export function turnDataConverter(encryption: TurnEncryption): DataConverter | undefined {
  const options = resolveEncryption(encryption);
  if (!options) return undefined;
  return {
    payloadCodecs: [new EncryptionCodec(options)],
    failureConverterPath: require.resolve('./encoding-failure-converter'),
  };
}

export function resolveEncryption(encryption: TurnEncryption): EncryptionCodecOptions | undefined {
  if (encryption === false) return undefined;
  const given = encryption ?? encryptionKeysFromEnv();
  if (!given) return undefined;
  return 'keys' in given ? given : { keys: given };
}

/** `{ dataConverter }` to spread into a Temporal client's or worker's options; nothing without keys. */
export function dataConverterOption(encryption: TurnEncryption): { dataConverter?: DataConverter } {
  const dataConverter = turnDataConverter(encryption);
  return dataConverter ? { dataConverter } : {};
}
