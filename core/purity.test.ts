import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseSync } from '@swc/core';

/**
 * core/ is bundled into Temporal workflow code, so it must be deterministic and free of I/O: no
 * clock, no randomness, no timers, no environment, no Node built-ins, no Temporal. The check parses
 * each file (comments, strings and type declarations are not code) and looks for the forbidden
 * constructs themselves, so an injected `timers.setTimeout(…)` or a doc comment naming `Date.now`
 * is fine while a real `Date.now()` is not.
 */

const coreDir = __dirname;
const forbiddenModules = [
  /^node:/,
  /^(fs|fs\/promises|path|crypto|os|child_process|http|https|net|worker_threads)$/,
  /^@temporalio\//,
];
const forbiddenMembers = new Map([
  ['Date', ['now']],
  ['Math', ['random']],
  ['performance', ['now']],
]);
const forbiddenCalls = new Set(['setTimeout', 'setInterval', 'setImmediate', 'Date']);

type AstNode = { type: string; span?: { start: number } } & Record<string, unknown>;

function isNode(value: unknown): value is AstNode {
  return (
    typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string'
  );
}

function* walk(value: unknown): Generator<AstNode> {
  if (Array.isArray(value)) {
    for (const item of value) yield* walk(item);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  if (isNode(value)) yield value;
  for (const child of Object.values(value)) yield* walk(child);
}

function identifier(value: unknown): string | undefined {
  return isNode(value) && value.type === 'Identifier' ? String(value.value) : undefined;
}

function stringLiteral(value: unknown): string | undefined {
  return isNode(value) && value.type === 'StringLiteral' ? String(value.value) : undefined;
}

/** What in one node breaks purity, if anything. */
function violation(node: AstNode): string | undefined {
  switch (node.type) {
    case 'MemberExpression': {
      const object = identifier(node.object);
      const property = identifier(node.property);
      if (object === 'process') return `process.${property ?? '…'}`;
      if (object && property && forbiddenMembers.get(object)?.includes(property))
        return `${object}.${property}`;
      return undefined;
    }
    case 'Identifier':
      return node.value === 'randomUUID' ? 'randomUUID' : undefined;
    case 'NewExpression':
      return identifier(node.callee) === 'Date' ? 'new Date(' : undefined;
    case 'CallExpression': {
      const callee = identifier(node.callee);
      if (callee && forbiddenCalls.has(callee)) return `${callee}(`;
      const first = (node.arguments as { expression?: unknown }[] | undefined)?.[0]?.expression;
      const isImport = isNode(node.callee) && node.callee.type === 'Import';
      if (isImport || callee === 'require') return moduleViolation(stringLiteral(first));
      return undefined;
    }
    case 'ImportDeclaration':
    case 'ExportAllDeclaration':
    case 'ExportNamedDeclaration':
      return moduleViolation(stringLiteral(node.source));
    case 'TsExternalModuleReference':
      return moduleViolation(stringLiteral(node.expression));
    default:
      return undefined;
  }
}

function moduleViolation(source: string | undefined): string | undefined {
  if (source === undefined) return undefined;
  return forbiddenModules.some((pattern) => pattern.test(source)) ? `import from '${source}'` : undefined;
}

/** Every violation in a source text, as `line N: what`. */
function violations(source: string): string[] {
  const module = parseSync(source, { syntax: 'typescript', target: 'es2022' });
  const bytes = Buffer.from(source);
  const found: string[] = [];
  for (const node of walk(module.body)) {
    const what = violation(node);
    if (!what) continue;
    const offset = (node.span?.start ?? 1) - 1;
    const line =
      offset >= 0 && offset <= bytes.length ? bytes.subarray(0, offset).toString().split('\n').length : '?';
    found.push(`line ${line}: ${what}`);
  }
  return found;
}

function coreSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return coreSources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('core purity', () => {
  it('finds core sources to check', () => {
    const files = coreSources(coreDir).map((f) => relative(coreDir, f));
    expect(files).toEqual(
      expect.arrayContaining(['index.ts', 'engine/turn-engine.ts', 'engine/apply-entry.ts']),
    );
  });

  it('has no clock, randomness, timers, environment, Node built-ins or Temporal in core', () => {
    const problems = coreSources(coreDir).flatMap((file) =>
      violations(readFileSync(file, 'utf8')).map((v) => `core/${relative(coreDir, file)} ${v}`),
    );
    expect(problems).toEqual([]);
  });

  describe('the check itself', () => {
    it.each([
      ['line 1: Date.now', 'const t = Date.now();'],
      ['line 1: Math.random', 'const r = Math.random();'],
      ['line 1: randomUUID', 'const id = crypto.randomUUID();'],
      ["line 1: import from 'node:crypto'", "import { randomUUID } from 'node:crypto';"],
      ['line 2: new Date(', 'const a = 1;\nconst d = new Date();'],
      ['line 1: setTimeout(', 'setTimeout(() => {}, 1);'],
      ['line 1: setInterval(', 'const h = setInterval(() => {}, 1);'],
      ['line 1: process.env', 'const env = process.env.HOME;'],
      ["line 1: import from 'fs'", "import { readFileSync } from 'fs';"],
      ["line 1: import from 'path'", "import { join } from 'path';"],
      ["line 1: import from 'crypto'", "import { createHash } from 'crypto';"],
      ["line 1: import from '@temporalio/workflow'", "export * from '@temporalio/workflow';"],
      ["line 1: import from 'fs'", "const fs = require('fs');"],
      ["line 1: import from 'node:os'", "const m = await import('node:os');"],
      ["line 1: import from 'os'", "import os = require('os');"],
    ])('reports "%s" for %j', (expected, source) => {
      expect(violations(source)).toContain(expected);
    });

    it('ignores comments, strings, injected timers and type declarations', () => {
      const source = [
        '/** pass `Date.now` in; never call setTimeout( or new Date( here */',
        "const hint = 'use Date.now() in the host, not process.env';",
        'interface Timers { setTimeout(fn: () => void, ms: number): unknown; now(): number }',
        'declare const timers: Timers;',
        'const handle = timers.setTimeout(() => {}, 10);',
        'const now = timers.now();',
        "import { z } from 'zod';",
        "import type { X } from './path';",
      ].join('\n');
      expect(violations(source)).toEqual([]);
    });
  });
});
