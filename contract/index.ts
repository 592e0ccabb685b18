/**
 * Everything that crosses the turn workflow's boundary — its input and result, its queries and
 * updates, the activities' inputs and outputs, the packed-JSON form of large values and the search
 * attributes — in one place that workflows, activities and clients all import. Changes here must
 * stay readable by running turns: add optional fields, never repurpose one; `contractVersion`
 * names the shape a release writes.
 */
export const contractVersion = 2;

export * from './activities';
export * from './conversation-workflow';
export * from './fleet-health';
export * from './fleet-health-history';
export * from './live-text';
export * from './packed-json';
export * from './search-attributes';
export * from './turn-workflow';
