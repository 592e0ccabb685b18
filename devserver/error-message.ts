/**
 * The message of anything thrown. Duck-typed rather than `instanceof Error`: errors from Node
 * built-ins come from another realm under Jest and in vm contexts, where `instanceof` says no.
 */
export function errorMessage({ error }: { error: unknown }): string {
  if (
    typeof error === 'object' &&
    error !== null &&
    'message' in error &&
    typeof error.message === 'string'
  ) {
    return error.message;
  }
  return String(error);
}
