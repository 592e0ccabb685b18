import { readFileSync } from 'node:fs';
import path from 'node:path';
import { durableTurnsVersion } from './package-version';

test("the version constant is package.json's: bump them together", () => {
  const pkg = JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  expect(durableTurnsVersion).toBe(pkg.version);
});
