import type { ConnectionConfig } from './connection-config';

/** One line for logs: where we connect and how, with the API key shown only as "set". */
export function describeConnectionConfig(config: ConnectionConfig): string {
  const tls =
    config.tls?.disabled === true || (config.tls === undefined && config.apiKey === undefined)
      ? 'off'
      : config.tls?.clientCert
        ? 'mTLS'
        : 'on';
  return [
    `address=${config.address ?? '(embedded dev server)'}`,
    `namespace=${config.namespace}`,
    `taskQueue=${config.taskQueue}`,
    `tls=${tls}`,
    ...(config.apiKey === undefined ? [] : ['apiKey=(set)']),
    ...(config.profile === undefined ? [] : [`profile=${config.profile.name} (${config.profile.file})`]),
  ].join(' ');
}
