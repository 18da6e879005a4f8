// Wire schemas of the provider callback route (behaviour.md section 18).
// The body is the provider's own, read as raw bytes and checked by the
// connector, so it has no schema here.
import { Type } from 'typebox';

/** Longest connector name in a callback URL; the built-in names are far shorter. */
export const CONNECTOR_NAME_CHARS_MAX = 64;

export const CallbackParams = Type.Object(
  {
    connector: Type.String({
      minLength: 1,
      maxLength: CONNECTOR_NAME_CHARS_MAX,
      pattern: '^[a-z0-9][a-z0-9._-]*$',
      description: 'The connector the callback is for, as configured: `authorize-net` for the card processor (behaviour.md section 18)',
    }),
  },
  { additionalProperties: false },
);

export const CallbackReceived = Type.Object(
  { received: Type.Literal(true, { description: 'The callback verified; what it reported is applied (or was already)' }) },
  { title: 'CallbackReceived', additionalProperties: false },
);
