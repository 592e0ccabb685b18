/** Field readers for provider JSON, which the readers take as it comes: a missing or odd field reads as empty. */
export type Json = Record<string, unknown>;

export function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function record(value: unknown): Json {
  return isRecord(value) ? value : {};
}

export function records(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

export function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export function count(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}
