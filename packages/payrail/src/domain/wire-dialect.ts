// The wire dialect of a payin source (docs/acceptblue-compatibility.md):
// `spec` answers as the interface spec says (shapes A, B and C); `acceptblue`
// answers as accept.blue's v2 API does, so a shop plugin written for
// accept.blue works unchanged. Requests are read the same way in both; the
// dialect decides how answers (and refusals) are written, and whether fields
// accept.blue does not document are ignored rather than refused.
export const WIRE_DIALECTS = ['spec', 'acceptblue'] as const;
export type WireDialect = (typeof WIRE_DIALECTS)[number];

export const DEFAULT_WIRE_DIALECT: WireDialect = 'spec';

export function isWireDialect(value: unknown): value is WireDialect {
  return typeof value === 'string' && (WIRE_DIALECTS as readonly string[]).includes(value);
}

/** The `version` field of accept.blue-dialect answers (accept.blue's own API version text). */
export const ACCEPTBLUE_API_VERSION = '2.0.0';
