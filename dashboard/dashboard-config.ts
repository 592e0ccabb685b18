import { z } from 'zod';
import { isLoopback } from '../codec/is-loopback';
import { formatIssues } from '../core/schema/format-issues';

export const tokenEnvVar = 'DURABLE_TURNS_DASHBOARD_TOKEN';
/** Names the request header an auth proxy in front sets to the signed-in user (`identityHeader`). */
export const identityHeaderEnvVar = 'DURABLE_TURNS_DASHBOARD_IDENTITY_HEADER';

/** Headers that carry credentials: naming one would write a secret into the journal as the approver. */
const credentialHeaders = ['authorization', 'cookie', 'proxy-authorization', 'x-csrf-token'];

/** A token short enough to guess is no protection; 24 characters of base64url is 144 bits. */
export const minTokenLength = 24;

export const dashboardOptionsSchema = z.object({
  host: z.string().min(1).default('127.0.0.1'),
  port: z.number().int().min(0).max(65_535).default(8234),
  token: z
    .string()
    .min(minTokenLength, `the dashboard token must be at least ${minTokenLength} characters`)
    .optional(),
  tls: z.object({ cert: z.string().min(1), key: z.string().min(1) }).optional(),
  /** Plain http beyond loopback, because a TLS proxy in front terminates https. */
  behindTlsProxy: z.boolean().default(false),
  /** Base address of the Temporal Web UI, for links to a turn's workflow. */
  webUiUrl: z.url().optional(),
  /**
   * `durable-turns dev`: the local Web UI decodes through the dashboard's `/codec` without a token
   * (the dev server's UI cannot send one), as a codec server with no token does; any local process
   * naming the UI's origin can then decode too. On loopback only. Otherwise `/codec` takes the
   * dashboard's token, and an `Origin` header never stands in for it.
   */
  webUiCodecWithoutToken: z.boolean().default(false),
  /**
   * The request header an auth proxy in front (oauth2-proxy, …) sets to the signed-in user, e.g.
   * `X-Forwarded-User`: a decision's approver is its value, and a decision without it is refused.
   * Trusted as it comes, so set it only when every request passes the proxy, which overwrites it.
   * Unset: decisions are by "dashboard token holder".
   */
  identityHeader: z
    .string()
    .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'expected a header name, e.g. X-Forwarded-User')
    .transform((name) => name.toLowerCase())
    .refine((name) => !credentialHeaders.includes(name), {
      message: `a header that carries credentials (${credentialHeaders.join(', ')}) cannot name the approver`,
    })
    .optional(),
});
export type DashboardOptions = z.input<typeof dashboardOptionsSchema>;

export interface DashboardConfig extends z.infer<typeof dashboardOptionsSchema> {
  loopback: boolean;
}

/**
 * The dashboard's settings, or an error saying how to fix them. Beyond loopback it refuses to
 * start without a token (anyone who reaches the port could read turns and steer them), and
 * without TLS unless told a TLS proxy sits in front (a Secure cookie is not kept over plain http,
 * and the token would cross the network in the clear).
 */
export function dashboardConfig({ options }: { options: DashboardOptions }): DashboardConfig {
  const parsed = dashboardOptionsSchema.safeParse(options);
  if (!parsed.success)
    throw new Error(`invalid dashboard settings: ${formatIssues(parsed.error, { root: 'options' })}`);
  const config = { ...parsed.data, loopback: isLoopback({ host: parsed.data.host }) };
  if (!config.loopback && config.webUiCodecWithoutToken)
    throw new Error(
      `the dashboard's codec routes answer the Web UI without a token only on loopback, not on ${config.host}`,
    );
  if (!config.loopback && config.token === undefined)
    throw new Error(
      `the dashboard would listen on ${config.host}, beyond loopback, without a token: anyone reaching the port could read and steer turns. ` +
        `Set ${tokenEnvVar} (e.g. \`export ${tokenEnvVar}=$(openssl rand -base64 32)\`), or listen on 127.0.0.1.`,
    );
  if (!config.loopback && config.tls === undefined && !config.behindTlsProxy)
    throw new Error(
      `the dashboard would serve plain http on ${config.host}, beyond loopback: the token would cross the network in the clear ` +
        'and browsers drop its Secure cookie. Give --tls-cert and --tls-key, or --behind-tls-proxy if a TLS proxy in front terminates https.',
    );
  return config;
}
