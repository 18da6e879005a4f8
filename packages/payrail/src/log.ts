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
  readonly principal?: { readonly merchantId: string; readonly credentialId: string } | undefined;
  readonly panelUser?: { readonly userId: string; readonly merchantId: string | null } | undefined;
}

/**
 * The fields of a request's one log line (PCI DSS 10.2: who, from where):
 * method, path without its query, the client's address, and the merchant
 * and credential an API call authenticated as, or the panel user. Never a
 * header, a query string or a body.
 */
export function requestLogFields(request: LoggedRequest): Record<string, string> {
  const fields: Record<string, string> = { method: request.method, url: request.url.split('?')[0]!, client_address: request.ip };
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
