import { EncryptionKeysError, encryptionKeysFromEnv } from '../codec/encryption-keys';
import { CliError } from './cli-error';

/**
 * Reads `DURABLE_TURNS_ENCRYPTION_KEYS` before anything connects, so a malformed one stops the
 * command at once with the expected format (never the key), not after a connection was made.
 */
export function checkEncryptionKeys(): void {
  try {
    encryptionKeysFromEnv();
  } catch (error) {
    if (error instanceof EncryptionKeysError) throw new CliError(error.message, { cause: error });
    throw error;
  }
}
