// One logger configuration for the server, worker and CLI. Redaction is a
// second line of defence: card data and secrets are never passed to the
// logger in the first place, but headers and bodies that carry them are
// censored by path should anyone log them.
import pino, { type Logger } from 'pino';

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["api-key"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["api-key"]',
  '*.card_number',
  // accept.blue's name for the card number (a charge or verify with a raw card).
  '*.card',
  '*.cvv2',
  '*.cvv',
  // A check's account number (a check charge, credit or saved check).
  '*.account_number',
  '*.pin',
  '*.api_key',
  '*.transfer_api_key',
  '*.tokenization_token',
  '*.password',
  'body',
  '*.body',
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'payrail' },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination ?? pino.destination({ dest: 1, sync: false }),
  );
}

/** What the request log line needs of a request; structural, so this module stays free of the HTTP framework. */
export interface LoggedRequest {
  readonly method: string;
  readonly url: string;
  readonly ip: string;
  /** The route's parameters, when it matched one: a `token` parameter is a secret. */
  readonly params?: unknown;
  readonly principal?: { readonly merchantId: string; readonly credentialId: string } | undefined;
  readonly panelUser?: { readonly userId: string; readonly merchantId: string | null } | undefined;
}

/** Marks a one-time link token ("lnk_<id>.<secret>", domain/link-token.ts) in a path segment. */
const LINK_TOKEN_MARK = /lnk_/i;
/** What a secret path segment is logged as. */
export const REDACTED_SEGMENT = '[redacted]';

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The path a log line shows: without its query, and with every segment that
 * carries a secret replaced by [redacted]. One rule for every route: a
 * segment holding a one-time link token (mailed password-reset, invitation,
 * credentials and sign-up links carry theirs in the path), however
 * percent-encoded and whether or not a route matched, or the value of a
 * route's `token` parameter. A link read from a log is then no link at all.
 */
export function loggedPath(url: string, params?: unknown): string {
  const path = url.split('?')[0]!.split('#')[0]!;
  const token = typeof params === 'object' && params !== null ? (params as { token?: unknown }).token : undefined;
  return path
    .split('/')
    .map((segment) => {
      const plain = decoded(segment);
      const secret = LINK_TOKEN_MARK.test(plain) || (typeof token === 'string' && token !== '' && plain === token);
      return secret ? REDACTED_SEGMENT : segment;
    })
    .join('/');
}

/**
 * The fields of a request's one log line (PCI DSS 10.2: who, from where):
 * method, path without its query and with secret segments redacted
 * (loggedPath), the client's address, and the merchant and credential an
 * API call authenticated as, or the panel user. Never a header, a query
 * string or a body.
 */
export function requestLogFields(request: LoggedRequest): Record<string, string> {
  const fields: Record<string, string> = { method: request.method, url: loggedPath(request.url, request.params), client_address: request.ip };
  if (request.principal !== undefined) {
    fields.merchant_id = request.principal.merchantId;
    fields.credential_id = request.principal.credentialId;
  }
  if (request.panelUser !== undefined) {
    fields.user_id = request.panelUser.userId;
    if (request.panelUser.merchantId !== null) fields.merchant_id = request.panelUser.merchantId;
  }
  return fields;
}
