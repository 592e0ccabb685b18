/**
 * The built-ins that workflow code reads, each read from the global object once, when a module
 * loads. The bundle's webpack config (`ProvidePlugin`) makes every free `Object`, `Math`, `JSON`, …
 * in every bundled module (ours, zod's, the SDK's) a module-level binding to these. In Temporal's
 * sandbox a global read goes through the vm context's interceptors, 0.3 µs each against 0.01 µs
 * for a binding, and an engine step reads thousands. These are the context's own intrinsics,
 * frozen and shared by every workflow in it, so holding them changes nothing but the time. `Date`
 * is not among them: the SDK replaces it with its deterministic clock, which it keeps the owner of.
 *
 * Reads go through `globalThis.` (a property, not a free name), so this module is not rewritten
 * to import itself.
 */
export const intrinsics = {
  Object: globalThis.Object,
  Array: globalThis.Array,
  Math: globalThis.Math,
  JSON: globalThis.JSON,
  Map: globalThis.Map,
  Set: globalThis.Set,
  WeakMap: globalThis.WeakMap,
  WeakSet: globalThis.WeakSet,
  Number: globalThis.Number,
  String: globalThis.String,
  Boolean: globalThis.Boolean,
  Symbol: globalThis.Symbol,
  Reflect: globalThis.Reflect,
  Promise: globalThis.Promise,
  Error: globalThis.Error,
  TypeError: globalThis.TypeError,
  RangeError: globalThis.RangeError,
  RegExp: globalThis.RegExp,
  Uint8Array: globalThis.Uint8Array,
  ArrayBuffer: globalThis.ArrayBuffer,
  BigInt: globalThis.BigInt,
  Proxy: globalThis.Proxy,
  parseInt: globalThis.parseInt,
  parseFloat: globalThis.parseFloat,
  // biome-ignore lint/suspicious/noGlobalIsNan: the global itself, for code (zod's, the SDK's) that reads it
  isNaN: globalThis.isNaN,
  // biome-ignore lint/suspicious/noGlobalIsFinite: the global itself, as above
  isFinite: globalThis.isFinite,
} as const;

export type IntrinsicName = keyof typeof intrinsics;
