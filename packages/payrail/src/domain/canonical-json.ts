// One text for one JSON value, whatever order its object keys came in: keys
// sorted (by UTF-16 code units, as Array.prototype.sort compares strings) at
// every depth, arrays in their own order, and otherwise what JSON.stringify
// writes (properties whose value is undefined left out). Two request bodies
// that mean the same thing get the same text, so an Idempotency-Key retry
// whose client serialized its fields in another order is the same request.

/** Bounds the recursion: request bodies are a few levels deep, and the schema refused anything odd before. */
const DEPTH_MAX = 32;

export function canonicalJson(value: unknown): string {
  return write(value, 0);
}

function write(value: unknown, depth: number): string {
  if (depth > DEPTH_MAX) throw new Error(`a value nested deeper than ${DEPTH_MAX} levels has no canonical text here`);
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : write(item, depth + 1))).join(',')}]`;
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    const entries = Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${write((value as Record<string, unknown>)[key], depth + 1)}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
