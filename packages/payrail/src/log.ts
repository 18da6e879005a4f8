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
  '*.cvv2',
  '*.cvv',
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
