// How a request is read in the accept.blue dialect (docs/acceptblue-compatibility.md):
// accept.blue's shop integrations send fields accept.blue does not document
// (Pinelab's `last4`, Formidable's `currency`, `three_ds`, a top-level
// `email`), JSON null for optional fields they have no value for, and two
// numbers as text (a `reference_number` of digits, a reversal's or refund's
// `amount` such as "10.00"). This hook runs after authentication and before
// the route's schema: for a caller in the `acceptblue` dialect it removes
// what the schema does not name, drops nulls, and turns those two kinds of
// text into numbers, and reads a card expiry of 0 as absent; the schema then
// validates what is left exactly as in the `spec` dialect, so a documented
// field of the wrong type is still refused. In the `spec` dialect the
// request is left as sent: an unknown field is refused with its name.
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The part of a JSON schema this hook reads. */
interface SchemaShape {
  readonly type?: string | readonly string[];
  readonly properties?: Readonly<Record<string, SchemaShape>>;
  readonly items?: SchemaShape;
  readonly anyOf?: readonly SchemaShape[];
}

export interface DialectRequestOptions {
  /** Top-level members sent as a string of digits that are read as the integer they spell. */
  readonly integerText?: readonly string[];
  /** Top-level members sent as a decimal string ("10.00") that are read as that number; the exact text is kept in request.decimalText. */
  readonly decimalText?: readonly string[];
}

declare module 'fastify' {
  interface FastifyRequest {
    /** A decimal sent as text in the accept.blue dialect, as sent (see dialect-requests.ts). */
    decimalText?: Record<string, string>;
  }
}

const DIGITS = /^[0-9]{1,15}$/;
/** Top-level members whose 0 means "not given" (a card expiry never is 0). */
const ZERO_MEANS_ABSENT = ['expiry_month', 'expiry_year'] as const;
/** A plain decimal as accept.blue's integrations write amounts: no sign, no exponent. */
const DECIMAL = /^[0-9]{1,12}(\.[0-9]{1,12})?$/;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object schemas `schema` may be (a union contributes each member). */
function objectShapes(schema: SchemaShape): SchemaShape[] {
  if (schema.properties !== undefined) return [schema];
  return (schema.anyOf ?? []).flatMap(objectShapes);
}

/** Removes members no shape names and nulls, recursively; returns the value to keep. */
function shape(value: unknown, schema: SchemaShape): unknown {
  if (Array.isArray(value)) {
    const items = schema.items ?? schema.anyOf?.find((s) => s.items !== undefined)?.items;
    return items === undefined ? value : value.map((item) => shape(item, items));
  }
  if (!isObject(value)) return value;
  const shapes = objectShapes(schema);
  if (shapes.length === 0) return value;
  const kept: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(value)) {
    if (member === null) continue;
    const memberSchema = shapes.map((s) => s.properties?.[name]).find((s) => s !== undefined);
    if (memberSchema === undefined) continue;
    kept[name] = shape(member, memberSchema);
  }
  return kept;
}

/**
 * A preValidation hook for a route whose body schema is `schema`: in the
 * accept.blue dialect, shapes the body as described at the top of this file.
 */
export function acceptBlueRequests(schema: SchemaShape, options: DialectRequestOptions = {}) {
  return async function shapeAcceptBlueRequest(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    if (request.principal?.dialect !== 'acceptblue' || !isObject(request.body)) return;
    const body = shape(request.body, schema) as Record<string, unknown>;
    // futureecom's driver sends a card expiry of 0/0 when its caller gave none
    // (a tkn- or pm- source brings its own): read as absent, as a null is.
    for (const name of ZERO_MEANS_ABSENT) if (body[name] === 0) delete body[name];
    for (const name of options.integerText ?? []) {
      const value = body[name];
      if (typeof value === 'string' && DIGITS.test(value)) body[name] = Number(value);
    }
    for (const name of options.decimalText ?? []) {
      const value = body[name];
      if (typeof value === 'string' && DECIMAL.test(value)) {
        body[name] = Number(value);
        request.decimalText = { ...request.decimalText, [name]: value };
      }
    }
    request.body = body;
  };
}
