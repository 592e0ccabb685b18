/** A value inside a single-quoted string of a Visibility query. */
export function quoteVisibility(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/'/g, "\\'");
}
