import { readdirSync, readFileSync } from 'node:fs';
import { type ConformancePart, conformanceParts } from './suite';

test('the Temporal conformance files run every part of the suite, each once', () => {
  const named = readdirSync(__dirname)
    .filter((file) => file.endsWith('.temporal.test.ts'))
    .flatMap((file) => [
      ...readFileSync(`${__dirname}/${file}`, 'utf8').matchAll(
        /conformanceSuite\(temporalHarness, \['(\w+)'\]\)/g,
      ),
    ])
    .map(([, part]) => part as ConformancePart);
  expect(named.sort()).toEqual(Object.keys(conformanceParts).sort());
});
