import { randomBytes } from 'node:crypto';
import { secretsMatch } from '../codec/secrets-match';
import { cookieOptions } from './session-cookies';

/** One browser's login: the id its cookie holds, and the CSRF value its actions must send. */
export interface LoginSession {
  id: string;
  csrf: string;
  expiresAt: number;
}

/**
 * Logins held in this dashboard process: a random id per login, forgotten on logout, after the
 * cookie's lifetime, or when the process restarts (everyone logs in again). Several dashboard
 * instances behind one address need sticky sessions, or each asks for a login of its own.
 */
export class LoginSessions {
  private readonly sessions = new Map<string, LoginSession>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly lifetimeMs = cookieOptions.maxAge * 1000,
    /** The most held at once: the oldest goes first (a flood of logins cannot grow memory). */
    private readonly max = 10_000,
  ) {}

  create(): LoginSession {
    this.prune();
    if (this.sessions.size >= this.max) {
      const oldest = this.sessions.keys().next().value;
      if (oldest !== undefined) this.sessions.delete(oldest);
    }
    const session = {
      id: randomBytes(32).toString('base64url'),
      csrf: randomBytes(32).toString('base64url'),
      expiresAt: this.now() + this.lifetimeMs,
    };
    this.sessions.set(session.id, session);
    return session;
  }

  /** The live session a cookie names, compared in constant time; undefined for any other value. */
  get(id: string | undefined): LoginSession | undefined {
    if (id === undefined) return undefined;
    const session = this.sessions.get(id);
    if (!session || !secretsMatch({ presented: id, expected: session.id })) return undefined;
    if (session.expiresAt <= this.now()) {
      this.sessions.delete(id);
      return undefined;
    }
    return session;
  }

  delete(id: string | undefined): void {
    if (id !== undefined) this.sessions.delete(id);
  }

  private prune(): void {
    const now = this.now();
    for (const [id, session] of this.sessions) if (session.expiresAt <= now) this.sessions.delete(id);
  }
}
