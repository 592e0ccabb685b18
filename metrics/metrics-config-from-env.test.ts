import { metricsConfigFromEnv } from './metrics-config-from-env';

test('both endpoints are off when their ports are unset or blank', () => {
  expect(metricsConfigFromEnv({ env: {} })).toEqual({});
  expect(metricsConfigFromEnv({ env: { DURABLE_TURNS_METRICS_PORT: ' ' } })).toEqual({});
});

test('each port turns its endpoint on, bound to 127.0.0.1 unless DURABLE_TURNS_METRICS_HOST says otherwise', () => {
  expect(metricsConfigFromEnv({ env: { DURABLE_TURNS_METRICS_PORT: '9464' } })).toEqual({
    metrics: { port: 9464, host: '127.0.0.1' },
  });
  expect(
    metricsConfigFromEnv({
      env: {
        DURABLE_TURNS_METRICS_PORT: '9464',
        DURABLE_TURNS_SDK_METRICS_PORT: '9465',
        DURABLE_TURNS_METRICS_HOST: '0.0.0.0',
      },
    }),
  ).toEqual({ metrics: { port: 9464, host: '0.0.0.0' }, sdkMetrics: { port: 9465, host: '0.0.0.0' } });
});

test('a port that is not one is an error that names the variable', () => {
  expect(() => metricsConfigFromEnv({ env: { DURABLE_TURNS_METRICS_PORT: 'nine' } })).toThrow(
    /DURABLE_TURNS_METRICS_PORT: .*integer 0–65535/,
  );
  expect(() => metricsConfigFromEnv({ env: { DURABLE_TURNS_SDK_METRICS_PORT: '70000' } })).toThrow(
    /DURABLE_TURNS_SDK_METRICS_PORT/,
  );
});

test('the two endpoints cannot share a port, and the SDK one cannot be left to chance', () => {
  expect(() =>
    metricsConfigFromEnv({
      env: { DURABLE_TURNS_METRICS_PORT: '9464', DURABLE_TURNS_SDK_METRICS_PORT: '9464' },
    }),
  ).toThrow("give the SDK's metrics a port of their own");
  expect(() => metricsConfigFromEnv({ env: { DURABLE_TURNS_SDK_METRICS_PORT: '0' } })).toThrow(
    'give it a fixed port',
  );
});
