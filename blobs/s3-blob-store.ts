import { AwsClient } from 'aws4fetch';
import { formatIssues } from '../core/schema/format-issues';
import type { BlobObjects } from './blob-objects';
import { BlobStoreError } from './blob-store-error';
import { ContentAddressedBlobStore } from './content-addressed-blob-store';
import { type S3BlobStoreOptions, type S3Credentials, s3LocationSchema } from './s3-blob-options';
import { s3Failure } from './s3-failure';
import { sha256Hex } from './sha256-hex';

const defaultTimeoutMs = 30_000;

/**
 * Objects in an S3 bucket, or any server speaking S3's API (MinIO, Ceph, R2, …), signed with
 * SigV4 by `aws4fetch` over Node's fetch. Each upload carries its SHA-256, which the server checks
 * against what it received. S3 is strongly consistent, and a PUT replaces an object whole, so
 * writers racing on a key each store the same blob.
 */
export class S3BlobObjects implements BlobObjects {
  readonly where: string;
  private readonly options: S3BlobStoreOptions;
  private readonly base: string;
  /** aws4fetch's cache of derived signing keys, kept across requests. */
  private readonly signingKeys = new Map<string, ArrayBuffer>();

  constructor(options: S3BlobStoreOptions) {
    const { credentials: _credentials, timeoutMs: _timeoutMs, ...given } = options;
    const location = s3LocationSchema.safeParse(given);
    if (!location.success)
      throw new BlobStoreError(
        `invalid S3 blob store: ${formatIssues(location.error, { root: 'options' })}`,
        {
          code: 'blob-store-invalid',
        },
      );
    this.options = options;
    const { bucket, region = 'us-east-1', endpoint } = location.data;
    const server = new URL(endpoint ?? `https://s3.${region}.amazonaws.com`);
    const pathStyle = location.data.pathStyle ?? endpoint !== undefined;
    const prefix = location.data.prefix?.replace(/\/?$/, '/') ?? '';
    this.base = pathStyle
      ? `${server.origin}${server.pathname.replace(/\/?$/, '/')}${bucket}/${prefix}`
      : `${server.protocol}//${bucket}.${server.host}${server.pathname.replace(/\/?$/, '/')}${prefix}`;
    this.where = `s3://${bucket}/${prefix} (${server.origin})`;
  }

  async has(key: string): Promise<boolean> {
    const response = await this.send({ method: 'HEAD', key });
    if (response.ok) return true;
    // S3 answers 403 for a missing object to credentials that may not list the bucket: then the
    // upload that follows says whether they may write.
    if (response.status === 404 || response.status === 403) return false;
    throw await s3Failure(response);
  }

  async read(key: string): Promise<Uint8Array | undefined> {
    const response = await this.send({ method: 'GET', key });
    if (response.ok) return new Uint8Array(await response.arrayBuffer());
    const failure = await s3Failure(response);
    // A missing bucket is a setting to fix, not a missing blob.
    if (response.status === 404 && !failure.message.includes('NoSuchBucket')) return undefined;
    throw failure;
  }

  async write(key: string, bytes: Uint8Array): Promise<void> {
    const response = await this.send({
      method: 'PUT',
      key,
      body: bytes,
      headers: { 'content-type': 'application/octet-stream', 'x-amz-content-sha256': sha256Hex(bytes) },
    });
    if (!response.ok) throw await s3Failure(response);
    await response.arrayBuffer();
  }

  private async send({
    method,
    key,
    body,
    headers,
  }: {
    method: 'HEAD' | 'GET' | 'PUT';
    key: string;
    body?: Uint8Array;
    headers?: Record<string, string>;
  }): Promise<Response> {
    const { credentials, region = 'us-east-1', timeoutMs = defaultTimeoutMs } = this.options;
    const current: S3Credentials = typeof credentials === 'function' ? await credentials() : credentials;
    // aws4fetch retries 5xx and 429 itself (re-signing each try); a refused connection is thrown.
    const client = new AwsClient({
      ...current,
      service: 's3',
      region,
      retries: 3,
      initRetryMs: 100,
      cache: this.signingKeys,
    });
    const url = this.base + key.split('/').map(encodeURIComponent).join('/');
    return client.fetch(url, {
      method,
      ...(body !== undefined && { body }),
      ...(headers !== undefined && { headers }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  }
}

/** Blobs in the clear in an S3-compatible bucket. */
export function s3BlobStore(options: S3BlobStoreOptions): ContentAddressedBlobStore {
  return new ContentAddressedBlobStore(new S3BlobObjects(options));
}
