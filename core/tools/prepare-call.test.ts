import { z } from 'zod';
import { retryPolicySchema } from '../schema/retry-policy';
import { type AnyTool, defineTool } from './define-tool';
import { evaluatePolicy, prepareCall, type RawToolCall } from './prepare-call';
import { ToolRegistry } from './tool-registry';

const readFile = defineTool({
  name: 'read_file',
  description: 'Reads a file',
  input: z.object({ path: z.string(), limit: z.number().int().optional() }),
  concurrencySafe: (args) => !args.path.startsWith('/dev/'),
  resources: (args) => [`file:${args.path}`],
  retry: { maxAttempts: 3 },
  timeoutMs: 5_000,
  retrySafe: true,
  execute: ({ path }) => path,
});
const ping = defineTool({
  name: 'ping',
  description: 'Pings',
  input: z.object({ host: z.string().optional() }),
  execute: () => 'pong',
});
const registry = new ToolRegistry([readFile, ping]);

function prepare(raw: Partial<RawToolCall> & { toolName: string }, usedIds: Iterable<string> = []) {
  return prepareCall({
    registry,
    raw: { toolCallId: 'call_1', input: '{}', ...raw },
    position: 0,
    responseIndex: 2,
    usedIds: new Set(usedIds),
  });
}

describe('prepareCall', () => {
  it('accepts a valid call and evaluates the tool’s policy for its arguments', () => {
    expect(prepare({ toolName: 'read_file', input: '{"path":"/a.txt"}' })).toEqual({
      toolCallId: 'call_1',
      toolName: 'read_file',
      input: { path: '/a.txt' },
      policy: {
        concurrencySafe: true,
        resources: ['file:/a.txt'],
        retry: retryPolicySchema.parse({ maxAttempts: 3 }),
        timeoutMs: 5_000,
        retrySafe: true,
        requiresApproval: false,
      },
    });
    expect(prepare({ toolName: 'read_file', input: '{"path":"/dev/tty"}' }).policy.concurrencySafe).toBe(
      false,
    );
  });

  it('accepts arguments that arrive already parsed, and empty argument text as no arguments', () => {
    expect(prepare({ toolName: 'read_file', input: { path: 'x' } })).toMatchObject({ input: { path: 'x' } });
    const empty = prepare({ toolName: 'ping', input: '  ' });
    expect(empty.rejection).toBeUndefined();
    expect(empty.input).toEqual({});
  });

  it('applies the cautious defaults to a tool that declares no policy', () => {
    expect(prepare({ toolName: 'ping' }).policy).toEqual({
      concurrencySafe: false,
      resources: [],
      retry: retryPolicySchema.parse({}),
      timeoutMs: undefined,
      retrySafe: false,
      requiresApproval: false,
    });
  });

  it('rejects an unknown tool with a message listing the available tools', () => {
    const call = prepare({ toolName: 'delete_everything' });
    expect(call.rejection).toEqual({
      errorType: 'unknown-tool',
      message: 'unknown tool "delete_everything"; available tools: read_file, ping',
    });
    expect(call.toolCallId).toBe('call_1');
  });

  it('says there are no tools when the registry is empty', () => {
    const call = prepareCall({
      registry: new ToolRegistry(),
      raw: { toolCallId: 'c', toolName: 'x', input: '{}' },
      position: 0,
      responseIndex: 0,
      usedIds: new Set(),
    });
    expect(call.rejection?.message).toBe('unknown tool "x"; available tools: (none)');
  });

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'])(
    'treats a tool named %s from the model as just unknown',
    (toolName) => {
      const call = prepare({ toolName, input: '{"a":1}' });
      expect(call.rejection).toEqual({
        errorType: 'unknown-tool',
        message: `unknown tool ${JSON.stringify(toolName)}; available tools: read_file, ping`,
      });
      expect(call.toolName).toBe(toolName);
    },
  );

  it('rejects invalid arguments with a message naming the field', () => {
    const call = prepare({ toolName: 'read_file', input: '{"path":42}' });
    expect(call.rejection?.errorType).toBe('invalid-arguments');
    expect(call.rejection?.message).toMatch(/^invalid arguments for read_file:\n/);
    expect(call.rejection?.message).toContain('→ at path');
    expect(call.rejection?.message).toContain('expected string');
  });

  it('names a missing field too', () => {
    const call = prepare({ toolName: 'read_file', input: '{"limit":3}' });
    expect(call.rejection?.message).toContain('→ at path');
  });

  it('rejects malformed argument JSON and keeps the raw text as the call’s input', () => {
    const call = prepare({ toolName: 'read_file', input: '{"path": "a.txt"' });
    expect(call.rejection?.errorType).toBe('invalid-arguments');
    expect(call.rejection?.message).toMatch(/^arguments for read_file are not valid JSON: /);
    expect(call.input).toBe('{"path": "a.txt"');
  });

  it('gives a rejected call a policy that never holds other calls back', () => {
    const call = prepare({ toolName: 'nope' });
    expect(call.policy).toMatchObject({ concurrencySafe: true, resources: [], requiresApproval: false });
  });

  it('replaces an empty id with a fresh one and rejects the call, saying why', () => {
    const call = prepare({ toolName: 'read_file', toolCallId: '   ', input: '{"path":"a"}' });
    expect(call.toolCallId).toBe('call_r2_0');
    expect(call.rejection).toEqual({
      errorType: 'invalid-call-id',
      message: 'the model sent a tool call without an id; this call was not run',
    });
  });

  it('replaces an id already used in the turn with one not used yet', () => {
    const call = prepare({ toolName: 'read_file', toolCallId: 'dup', input: '{"path":"a"}' }, [
      'dup',
      'call_r2_0',
      'call_r2_0_2',
    ]);
    expect(call.toolCallId).toBe('call_r2_0_3');
    expect(call.rejection).toEqual({
      errorType: 'invalid-call-id',
      message: 'the tool call id "dup" was already used in this turn; this call was not run',
    });
  });

  it('trims whitespace around an id', () => {
    expect(prepare({ toolName: 'ping', toolCallId: ' abc ' }).toolCallId).toBe('abc');
  });
});

describe('evaluatePolicy', () => {
  const throwing = (): never => {
    throw new Error('policy bug');
  };

  it('falls back to the cautious value when a policy function throws', () => {
    const tool: AnyTool = {
      name: 'fragile',
      description: 'Has buggy policies',
      input: z.object({}),
      execute: () => 'ok',
      concurrencySafe: throwing,
      resources: throwing,
      requiresApproval: throwing,
    };
    expect(evaluatePolicy(tool, {})).toMatchObject({
      concurrencySafe: false,
      resources: [],
      requiresApproval: true,
    });
  });

  it('does not crash the turn when a call with a throwing policy is prepared', () => {
    const fragile: AnyTool = {
      name: 'fragile',
      description: 'Has buggy policies',
      input: z.object({}),
      execute: () => 'ok',
      concurrencySafe: throwing,
    };
    const call = prepareCall({
      registry: new ToolRegistry([fragile]),
      raw: { toolCallId: 'c', toolName: 'fragile', input: '{}' },
      position: 0,
      responseIndex: 0,
      usedIds: new Set(),
    });
    expect(call.rejection).toBeUndefined();
    expect(call.policy.concurrencySafe).toBe(false);
  });

  it('turns resource keys into strings and evaluates approval per call', () => {
    const tool: AnyTool = {
      name: 'rm',
      description: 'Removes',
      input: z.object({ path: z.string() }),
      execute: () => 'ok',
      resources: (args: { path: string }) => [args.path, 7] as unknown as string[],
      requiresApproval: (args: { path: string }) => args.path === '/',
    };
    expect(evaluatePolicy(tool, { path: '/' })).toMatchObject({
      resources: ['/', '7'],
      requiresApproval: true,
    });
    expect(evaluatePolicy(tool, { path: '/tmp' }).requiresApproval).toBe(false);
  });
});
