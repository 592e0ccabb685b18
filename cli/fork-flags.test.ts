import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TurnResult } from '../core';
import { CliError } from './cli-error';
import { exitCodes } from './exit-codes';
import { forkPointOf, forkPointText, outputEditsOf } from './fork-flags';
import { checkForkPoint, editedOutputs } from './fork-source';

const refusal = async (run: () => unknown): Promise<CliError> => {
  try {
    await run();
  } catch (error) {
    if (error instanceof CliError) return error;
    throw error;
  }
  throw new Error('not refused');
};

describe('fork --at', () => {
  test('after:N counts responses from 1, as every view of a turn shows them; before:CALL names a call', () => {
    expect(forkPointOf('after:1')).toEqual({ afterResponse: 0 });
    expect(forkPointOf('after:12')).toEqual({ afterResponse: 11 });
    expect(forkPointOf('before:call_1_2')).toEqual({ beforeCall: 'call_1_2' });
    // A call id may hold a colon: only the first one splits.
    expect(forkPointOf('before:ns:call')).toEqual({ beforeCall: 'ns:call' });
    expect(forkPointText({ afterResponse: 0 })).toBe('after response 1');
    expect(forkPointText({ beforeCall: 'x' })).toBe('before call x');
  });

  test('anything else is a usage error (exit 2) that says what to write', async () => {
    for (const given of ['after:0', 'after:-1', 'after:two', 'after:', 'before:', '3', 'during:x']) {
      const error = await refusal(() => forkPointOf(given));
      expect(error.exitCode).toBe(exitCodes.usage);
      expect(error.message).toContain(`--at ${JSON.stringify(given)}`);
    }
    expect((await refusal(() => forkPointOf('after:0'))).message).toContain('counted from 1');
  });
});

describe('fork --output', () => {
  test('CALL=VALUE: JSON when it parses, else the text as typed; @FILE reads the value from a file', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'fork-flags-'));
    try {
      writeFileSync(path.join(dir, 'rows.json'), '{"rows":[1,2]}');
      writeFileSync(path.join(dir, 'note.txt'), 'plain words');
      const edits = await outputEditsOf([
        'a={"rows":3}',
        'b=edited text',
        'c=a=b',
        `d=@${path.join(dir, 'rows.json')}`,
        `e=@${path.join(dir, 'note.txt')}`,
      ]);
      expect(Object.fromEntries(edits)).toEqual({
        a: { rows: 3 },
        b: 'edited text',
        c: 'a=b',
        d: { rows: [1, 2] },
        e: 'plain words',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('no =, a call given twice or a file that cannot be read are usage errors naming the flag', async () => {
    for (const given of [['no-equals'], ['=x'], ['a=1', 'a=2'], ['a=@/no/such/file']]) {
      const error = await refusal(() => outputEditsOf(given));
      expect(error.exitCode).toBe(exitCodes.usage);
      expect(error.message).toMatch(/^--output/);
    }
  });

  test("an edit becomes an ok output with the call's recorded attempts (it ran; only what the model reads changes)", () => {
    const source = {
      outputs: [{ toolCallId: 'a', name: 't', status: 'error', content: 'boom', attempts: 3 }],
    } as unknown as TurnResult;
    const edits = new Map<string, unknown>([
      ['a', 'fixed'],
      ['zz', 1],
    ]);
    expect(editedOutputs({ source, edits })).toEqual({
      a: { status: 'ok', content: 'fixed', attempts: 3 },
      // Not recorded: the fork itself refuses it, naming it.
      zz: { status: 'ok', content: 1, attempts: 0 },
    });
  });
});

describe("the fork point against the source's responses", () => {
  const responded = (responseIndex: number) => ({ type: 'model.responded', responseIndex });
  const source = (events: unknown[]) => ({ turnId: 't', events }) as unknown as TurnResult;

  test('after:N past the last response is refused in the numbers the command line uses, those a fork began with counted', async () => {
    const twice = source([{ type: 'turn.started' }, responded(0), responded(1)]);
    expect(() => checkForkPoint({ source: twice, at: { afterResponse: 1 } })).not.toThrow();
    expect((await refusal(() => checkForkPoint({ source: twice, at: { afterResponse: 2 } }))).message).toBe(
      'turn t has 2 responses: there is no after response 3 (--at after:1 to after:2)',
    );
    // A fork's own responses follow the record it began with.
    const fork = source([{ type: 'turn.forked', events: [responded(0), responded(1)] }, responded(2)]);
    expect(() => checkForkPoint({ source: fork, at: { afterResponse: 2 } })).not.toThrow();
    // A call is the fork's to find: it names one the turn does not have.
    expect(() => checkForkPoint({ source: twice, at: { beforeCall: 'nope' } })).not.toThrow();
  });
});
