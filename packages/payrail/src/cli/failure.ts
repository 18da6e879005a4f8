// How a failed command reports itself: one line on stderr (`payrail: ...`),
// or with --json one object {"error": {code, message, store?}}; never a stack
// trace unless LOG_LEVEL is debug or trace. A command that used a store names
// it (the SQLite file, or the PostgreSQL URL without its password), so a
// command run against another store than the server's says so. A port in use
// is said in one line with what to do about it.
import { isApiError } from '../errors.ts';

/** Carries the store a failed command was using. */
export class StoreCommandError extends Error {
  override readonly name = 'StoreCommandError';
  constructor(
    readonly failure: unknown,
    readonly store: string,
  ) {
    super(failure instanceof Error ? failure.message : String(failure));
  }
}

/** Runs `work`, labelling whatever it throws with `store`. */
export async function inStore<T>(store: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw error instanceof StoreCommandError ? error : new StoreCommandError(error, store);
  }
}

export interface Failure {
  /** The catalogue's code for an API error, `port_in_use`, or `error`. */
  readonly code: string;
  readonly message: string;
  readonly store: string | null;
}

const DEBUG_LEVELS = new Set(['debug', 'trace']);
const BUILT_IN_ERRORS = new Set(['Error', 'TypeError', 'RangeError', 'ReferenceError', 'SyntaxError']);

/** `expected`: errors whose message is the whole story (configuration, usage). */
export function describeFailure(error: unknown, expected: (error: unknown) => boolean, logLevel = process.env.LOG_LEVEL): Failure {
  const store = error instanceof StoreCommandError ? error.store : null;
  const cause = error instanceof StoreCommandError ? error.failure : error;
  if (isApiError(cause)) return { code: cause.code, message: cause.message, store };
  const listen = cause as { code?: unknown; port?: unknown; address?: unknown };
  if (listen?.code === 'EADDRINUSE') {
    const where = typeof listen.port === 'number' ? `port ${listen.port}${typeof listen.address === 'string' ? ` on ${listen.address}` : ''}` : 'the port';
    return { code: 'port_in_use', message: `${where} is already in use: stop the process using it, or set PORT to a free port`, store: null };
  }
  if (expected(cause) || !(cause instanceof Error)) return { code: 'error', message: cause instanceof Error ? cause.message : String(cause), store };
  if (logLevel !== undefined && DEBUG_LEVELS.has(logLevel) && cause.stack !== undefined) return { code: 'error', message: cause.stack, store };
  // A system error (ECONNREFUSED, EACCES, SQLITE_CANTOPEN) or one of our own named errors says enough; a bare built-in may be a bug worth locating.
  const hint = typeof listen?.code !== 'string' && BUILT_IN_ERRORS.has(cause.name) ? ' (LOG_LEVEL=debug shows where it happened)' : '';
  return { code: 'error', message: `${cause.message}${hint}`, store };
}

export function failureText(failure: Failure): string {
  const named = failure.store === null || failure.message.includes(failure.store) ? '' : ` (store: ${failure.store})`;
  return `payrail: ${failure.message}${named}\n`;
}

export function failureJson(failure: Failure): string {
  return `${JSON.stringify({ error: { code: failure.code, message: failure.message, ...(failure.store === null ? {} : { store: failure.store }) } })}\n`;
}
