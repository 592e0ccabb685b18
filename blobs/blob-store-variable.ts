/** The environment variable that says where blobs are stored. */
export const blobStoreVariable = 'DURABLE_TURNS_BLOB_STORE';

/** What the variable may hold, for the errors that say it does not. */
export const blobStoreFormat =
  `${blobStoreVariable}=file:/absolute/folder, or s3://bucket[/prefix][?endpoint=http://host:port&region=us-east-1&pathStyle=true|false] ` +
  'with credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN); unset: a "blobs" folder in the state folder';
