import { createHmac, randomBytes } from 'node:crypto';
import { secretsMatch } from '../codec/secrets-match';
import { ApiError } from './api-error';

/**
 * Seals Visibility's page tokens into the API's cursors with an HMAC under a key of this process,
 * so a made-up or edited cursor is a 400 here instead of a request the server chokes on (the dev
 * server retries a bad token until the deadline). A restarted dashboard does not know its old
 * cursors: the list starts over from its first page.
 */
export class CursorSeal {
  private readonly key = randomBytes(32);

  seal({ token }: { token: string }): string {
    return `${token}.${this.mac({ token })}`;
  }

  open({ cursor }: { cursor: string }): string {
    const at = cursor.lastIndexOf('.');
    const token = cursor.slice(0, at);
    if (at <= 0 || !secretsMatch({ presented: cursor.slice(at + 1), expected: this.mac({ token }) }))
      throw new ApiError(
        400,
        'malformed query: cursor: not a cursor of this dashboard (pass the nextCursor of the previous page; after a restart, start from the first page)',
      );
    return token;
  }

  private mac({ token }: { token: string }): string {
    return createHmac('sha256', this.key).update(token).digest('base64url').slice(0, 22);
  }
}
