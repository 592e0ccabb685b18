import type { TurnClient } from '../client/turn-client';
import type { CursorSeal } from './cursor-seal';
import type { DashboardConfig } from './dashboard-config';
import type { HealthFeed } from './health-feed';
import type { LoginSessions } from './login-sessions';
import type { TurnWatchHub } from './turn-watch-hub';
import type { UpstreamContext } from './upstream-error';

/** What the routes share: the client, where it points, the settings and the live feeds. */
export interface DashboardContext {
  client: TurnClient;
  upstream: UpstreamContext;
  config: DashboardConfig;
  hub: TurnWatchHub;
  health: HealthFeed;
  cursors: CursorSeal;
  /** The logins of this dashboard process (see `LoginSessions`). */
  sessions: LoginSessions;
  /** How long one upstream call may take before the API answers 503. */
  upstreamTimeoutMs: number;
}

/** `fn` under the upstream deadline: a server that stops answering is a 503, not a hung request. */
export function withUpstreamDeadline<T>({
  context,
  fn,
}: {
  context: DashboardContext;
  fn: () => Promise<T>;
}): Promise<T> {
  return context.client.client.withDeadline(Date.now() + context.upstreamTimeoutMs, fn);
}

/** The same workflow in the Temporal Web UI, when its address is known. */
export function webUiUrlOf({
  context,
  turnId,
}: {
  context: DashboardContext;
  turnId: string;
}): string | undefined {
  const base = context.config.webUiUrl?.replace(/\/+$/, '');
  if (base === undefined) return undefined;
  return `${base}/namespaces/${encodeURIComponent(context.upstream.namespace)}/workflows/${encodeURIComponent(turnId)}`;
}
