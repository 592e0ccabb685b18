import type { Connection } from '@temporalio/client';
import { isGrpcServiceError } from '@temporalio/client';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes';
import { TemporalSetupError } from './temporal-setup-error';

/** Search attribute types as the Temporal CLI spells them (`--search-attribute Name=Keyword`). */
export type SearchAttributeTypeName =
  | 'Text'
  | 'Keyword'
  | 'Int'
  | 'Double'
  | 'Bool'
  | 'Datetime'
  | 'KeywordList';

export interface SearchAttributeSpec {
  name: string;
  type: SearchAttributeTypeName;
}

/** gRPC status codes (PERMISSION_DENIED, UNIMPLEMENTED) meaning "you may not ask", not "it failed". */
const unverifiable = new Set([7, 12]);

const wireNames = {
  Text: 'TEXT',
  Keyword: 'KEYWORD',
  Int: 'INT',
  Double: 'DOUBLE',
  Bool: 'BOOL',
  Datetime: 'DATETIME',
  KeywordList: 'KEYWORD_LIST',
} as const;

/** The `temporal` commands that register `specs`, for error messages a person can act on. */
export function searchAttributeCommands({
  specs,
  namespace,
}: {
  specs: readonly SearchAttributeSpec[];
  namespace: string;
}): string {
  return specs
    .map(
      (spec) =>
        `  temporal operator search-attribute create --namespace ${namespace} --name ${spec.name} --type ${spec.type}`,
    )
    .join('\n');
}

/**
 * Checks that `searchAttributes` are registered on `namespace` and registers the missing ones.
 * The dev server's `--search-attribute` flag only takes effect when its SQLite file is new, so a
 * state file from an older version that lacks a newer attribute needs this; so does a server the
 * user runs. A listed attribute with another type cannot be fixed here (types are permanent): that
 * is an error saying what to remove.
 */
export async function ensureSearchAttributes({
  connection,
  namespace,
  searchAttributes,
  log,
}: {
  /** A client or worker connection: only its operator service is used. */
  connection: Pick<Connection, 'operatorService'>;
  namespace: string;
  searchAttributes: readonly SearchAttributeSpec[];
  log: (line: string) => void;
}): Promise<void> {
  if (searchAttributes.length === 0) return;
  let customAttributes: Record<string, unknown> | null | undefined;
  try {
    ({ customAttributes } = await connection.operatorService.listSearchAttributes({ namespace }));
  } catch (error) {
    // Some hosted servers do not let every API key list attributes; the turn can still run if an
    // operator registered them, so say what is needed instead of refusing to start.
    if (isGrpcServiceError(error) && unverifiable.has(error.code)) {
      log(
        `Could not check the search attributes on namespace ${namespace} (${error.details || error.message}); ` +
          `make sure they are registered:\n${searchAttributeCommands({ specs: searchAttributes, namespace })}`,
      );
      return;
    }
    throw error;
  }
  const missing: SearchAttributeSpec[] = [];
  for (const spec of searchAttributes) {
    const wanted = encodeSearchAttributeIndexedValueType(wireNames[spec.type]);
    const existing = customAttributes?.[spec.name];
    if (existing === undefined || existing === null) {
      missing.push(spec);
    } else if (existing !== wanted) {
      throw new TemporalSetupError(
        `Search attribute ${spec.name} exists on namespace ${namespace} with another type than ${spec.type}; ` +
          'durable-turns cannot use it. Remove it (temporal operator search-attribute remove ' +
          `--namespace ${namespace} --name ${spec.name}) and start again, or use another namespace.`,
      );
    }
  }
  if (missing.length === 0) return;

  const toAdd: Record<string, NonNullable<ReturnType<typeof encodeSearchAttributeIndexedValueType>>> = {};
  for (const spec of missing) {
    const type = encodeSearchAttributeIndexedValueType(wireNames[spec.type]);
    if (type !== undefined) toAdd[spec.name] = type;
  }
  try {
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: toAdd });
  } catch (error) {
    const reason = isGrpcServiceError(error) ? error.details || error.message : String(error);
    throw new TemporalSetupError(
      `Could not register the search attributes durable-turns needs on namespace ${namespace} (${reason}). ` +
        `Register them once with:\n${searchAttributeCommands({ specs: missing, namespace })}`,
      { cause: error },
    );
  }
  log(
    `Registered search attributes on namespace ${namespace}: ${missing.map((spec) => spec.name).join(', ')}`,
  );
}
