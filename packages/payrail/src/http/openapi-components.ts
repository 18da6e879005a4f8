// Named component schemas for the OpenAPI document. Route schemas stay
// inline for validation; every schema that carries a `title` (the request
// bodies and answers of src/http/schemas/) is moved into
// components.schemas under that title and referenced from where it was, so
// generated clients get named types (Transaction, TransferRequest, ...)
// instead of anonymous ones. Two different schemas with one title are a
// programming error and stop the document from being built.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Replaces titled schemas inside `node` by references, registering them in `components`. */
function lift(node: Json, components: Record<string, JsonObject>): Json {
  if (Array.isArray(node)) return node.map((item) => lift(item, components));
  if (!isObject(node)) return node;
  const inner: JsonObject = {};
  for (const [key, value] of Object.entries(node)) inner[key] = lift(value, components);
  const title = node.title;
  if (typeof title !== 'string' || !/^[A-Za-z][A-Za-z0-9]*$/.test(title)) return inner;
  const { title: _title, ...schema } = inner;
  const existing = components[title];
  if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(schema)) {
    throw new Error(`two different schemas are titled ${title}`);
  }
  components[title] = schema;
  return { $ref: `#/components/schemas/${title}` };
}

/** The document with its titled schemas named in components.schemas. */
export function withNamedSchemas<T extends object>(document: T): T {
  const doc = document as unknown as JsonObject;
  const components: Record<string, JsonObject> = {};
  const paths = lift(doc.paths ?? {}, components);
  const existing = isObject(doc.components) ? doc.components : {};
  const schemas = { ...(isObject(existing.schemas) ? existing.schemas : {}), ...components };
  const sorted = Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b)));
  return { ...doc, paths, components: { ...existing, schemas: sorted } } as unknown as T;
}
