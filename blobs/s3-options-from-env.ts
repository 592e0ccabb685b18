import { z } from 'zod';
import { formatIssues } from '../core/schema/format-issues';
import { BlobStoreError } from './blob-store-error';
import { blobStoreFormat, blobStoreVariable } from './blob-store-variable';
import { type S3BlobStoreOptions, s3LocationSchema } from './s3-blob-options';

const querySchema = z.strictObject({
  endpoint: z.string().optional(),
  region: z.string().optional(),
  pathStyle: z.enum(['true', 'false']).optional(),
});

/** A variable set to blanks is as good as unset. */
const trimmed = (value: unknown) => (typeof value === 'string' ? value.trim() || undefined : value);
const blankIsUnset = z.preprocess(trimmed, z.string().optional());
const required = z.preprocess(
  trimmed,
  z.string({ error: 'unset: an s3:// blob store needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY' }),
);

function decodedPrefix(url: URL): string {
  try {
    return decodeURIComponent(url.pathname).replace(/^\//, '');
  } catch {
    throw invalid('has a prefix whose %-escapes are not UTF-8');
  }
}
const credentialsSchema = z.object({
  AWS_ACCESS_KEY_ID: required,
  AWS_SECRET_ACCESS_KEY: required,
  AWS_SESSION_TOKEN: blankIsUnset,
  AWS_REGION: blankIsUnset,
  AWS_DEFAULT_REGION: blankIsUnset,
});

function invalid(problem: string): BlobStoreError {
  return new BlobStoreError(`${blobStoreVariable} ${problem}. Expected ${blobStoreFormat}`, {
    code: 'blob-store-invalid',
  });
}

/**
 * The S3 store an `s3://bucket/prefix?endpoint=…&region=…&pathStyle=…` setting names, with the
 * credentials (and, unless the setting names one, the region) of the usual AWS variables.
 */
export function s3OptionsFromEnv({
  setting,
  env,
}: {
  setting: string;
  env: NodeJS.ProcessEnv;
}): S3BlobStoreOptions {
  const url = URL.parse(setting);
  if (!url) throw invalid('is not a URL');
  // URLs end up in logs and process listings; keys do not belong in them.
  if (url.username || url.password)
    throw invalid('holds credentials: put them in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY instead');
  const query = querySchema.safeParse(Object.fromEntries(url.searchParams));
  if (!query.success)
    throw invalid(`has a query it does not understand: ${formatIssues(query.error, { root: 'query' })}`);
  const fromEnv = credentialsSchema.safeParse(env);
  if (!fromEnv.success) throw invalid(`is s3://, but ${formatIssues(fromEnv.error)}`);
  const { endpoint, region, pathStyle } = query.data;
  const prefix = decodedPrefix(url);
  const location = s3LocationSchema.safeParse({
    bucket: url.hostname,
    ...(prefix && { prefix }),
    ...(endpoint !== undefined && { endpoint }),
    region: region ?? fromEnv.data.AWS_REGION ?? fromEnv.data.AWS_DEFAULT_REGION,
    ...(pathStyle !== undefined && { pathStyle: pathStyle === 'true' }),
  });
  if (!location.success) throw invalid(`is not a valid S3 location: ${formatIssues(location.error)}`);
  const {
    AWS_ACCESS_KEY_ID: accessKeyId,
    AWS_SECRET_ACCESS_KEY: secretAccessKey,
    AWS_SESSION_TOKEN: sessionToken,
  } = fromEnv.data;
  return {
    ...location.data,
    credentials: { accessKeyId, secretAccessKey, ...(sessionToken !== undefined && { sessionToken }) },
  };
}
