import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '@jest/globals';

const root = path.join(__dirname, '../..');

/** The file without its leading doc comment (which says how to run it, not what it does). */
function exampleBody(file: string): string {
  return readFileSync(path.join(root, file), 'utf8')
    .replace(/^\/\*\*[\s\S]*?\*\/\n/, '')
    .trim();
}

test("the README's In code section shows examples/in-code.ts as it is (the file CI runs and type-checks)", () => {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## In code'));
  const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  expect(block?.trim()).toBe(exampleBody('examples/in-code.ts'));
});
