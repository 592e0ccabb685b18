import type { Connection } from '@temporalio/client';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes';
import { ensureSearchAttributes } from './ensure-search-attributes';
import { TemporalSetupError } from './temporal-setup-error';

// The refusals a real server gives and the dev server cannot be made to give (an API key that may
// not list or add attributes, an attribute of another type), from an operator service that answers so.
const specs = [
  { name: 'DurableTurnStatus', type: 'Keyword' },
  { name: 'DurableTurnTokens', type: 'Int' },
] as const;

function grpcError(code: number, details: string): Error {
  return Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} });
}

function operator({
  listed = {},
  list,
  add,
}: {
  listed?: Record<string, unknown>;
  list?: Error;
  add?: Error;
}): { connection: Pick<Connection, 'operatorService'>; added: Record<string, unknown>[] } {
  const added: Record<string, unknown>[] = [];
  const operatorService = {
    listSearchAttributes: async () => {
      if (list) throw list;
      return { customAttributes: listed };
    },
    addSearchAttributes: async ({ searchAttributes }: { searchAttributes: Record<string, unknown> }) => {
      if (add) throw add;
      added.push(searchAttributes);
      return {};
    },
  };
  return { connection: { operatorService } as unknown as Pick<Connection, 'operatorService'>, added };
}

/** Runs the check on `namespace`; what it logged, and how it ended. */
function ensureOn({
  connection,
  namespace = 'ns',
}: {
  connection: Pick<Connection, 'operatorService'>;
  namespace?: string;
}) {
  const lines: string[] = [];
  const done = ensureSearchAttributes({
    connection,
    namespace,
    searchAttributes: specs,
    log: (l) => lines.push(l),
  });
  return { lines, done };
}

const keyword = encodeSearchAttributeIndexedValueType('KEYWORD');
const int = encodeSearchAttributeIndexedValueType('INT');

describe('ensureSearchAttributes: a namespace has the turn attributes before anything starts turns on it', () => {
  test('registers only the missing ones, and says which', async () => {
    const { connection, added } = operator({ listed: { DurableTurnStatus: keyword } });
    const { lines, done } = ensureOn({ connection });
    await done;
    expect(added).toEqual([{ DurableTurnTokens: int }]);
    expect(lines).toEqual(['Registered search attributes on namespace ns: DurableTurnTokens']);
  });

  test('with every one registered, adds nothing and says nothing', async () => {
    const { connection, added } = operator({
      listed: { DurableTurnStatus: keyword, DurableTurnTokens: int },
    });
    const { lines, done } = ensureOn({ connection });
    await done;
    expect(added).toEqual([]);
    expect(lines).toEqual([]);
  });

  test('a server that will not register them refuses with the commands that would', async () => {
    const { connection } = operator({ add: grpcError(7, 'not allowed for this key') });
    const refused = ensureOn({ connection, namespace: 'prod' }).done;
    await expect(refused).rejects.toThrow(TemporalSetupError);
    await expect(refused).rejects.toThrow(
      /not allowed for this key[\s\S]*temporal operator search-attribute create --namespace prod --name DurableTurnStatus --type Keyword\n {2}temporal operator search-attribute create --namespace prod --name DurableTurnTokens --type Int/,
    );
  });

  test('a key that may not list them is told what must be registered, and the start goes on', async () => {
    const { connection, added } = operator({ list: grpcError(7, 'permission denied') });
    const { lines, done } = ensureOn({ connection });
    await done;
    expect(added).toEqual([]);
    expect(lines.join('\n')).toMatch(/Could not check[\s\S]*--name DurableTurnTokens --type Int/);
  });

  test('an attribute of another type is an error naming it and how to remove it (types are permanent)', async () => {
    const { connection } = operator({ listed: { DurableTurnStatus: keyword, DurableTurnTokens: keyword } });
    await expect(ensureOn({ connection }).done).rejects.toThrow(
      /DurableTurnTokens exists on namespace ns with another type than Int[\s\S]*search-attribute remove/,
    );
  });
});
