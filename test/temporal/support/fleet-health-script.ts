import { scriptedModel } from 'durable-turns';

/** One wave of `lookup` and `steady` calls, then an answer: the fleet health test's turns. */
export function fleetScript() {
  return scriptedModel(
    [
      {
        toolCalls: [
          { name: 'lookup', args: { n: 1 } },
          { name: 'lookup', args: { n: 2 } },
          { name: 'lookup', args: { n: 3 } },
          { name: 'steady', args: { n: 4 } },
        ],
      },
      { text: 'looked up' },
    ],
    'fleet-script',
  );
}
