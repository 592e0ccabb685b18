import { ApiError } from './api-error';
import type { DashboardConfig } from './dashboard-config';

/** Who decided, when the dashboard knows no more than that the request carried its token. */
export const tokenHolder = 'dashboard token holder';

/** As long as the journal keeps an approver's name (`ApprovalDecision.by`). */
const maxApproverLength = 200;

/**
 * The approver a decision is recorded as: the value of the configured identity header (set by
 * the auth proxy in front), else the token holder. With the header configured, a request without
 * it did not come through the proxy, or the proxy knows no user: refused, never guessed.
 */
export function approverOf({
  headers,
  config,
}: {
  headers: Record<string, string | string[] | undefined>;
  config: Pick<DashboardConfig, 'identityHeader'>;
}): string {
  const name = config.identityHeader;
  if (name === undefined) return tokenHolder;
  const raw = headers[name];
  const value = (Array.isArray(raw) ? raw.join(', ') : raw)?.trim();
  if (!value)
    throw new ApiError(
      403,
      `this dashboard records who decides from the ${name} header, which its auth proxy sets, and this request has none: reach the dashboard through the proxy`,
    );
  if (value.length > maxApproverLength)
    throw new ApiError(400, `malformed header: ${name} is longer than ${maxApproverLength} characters`);
  return value;
}
