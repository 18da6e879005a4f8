// Reading a provider's HTTP answer, shared by the connectors that call
// providers over fetch: the body is read up to a limit (a provider, or
// anything posing as one, must not make Payrail buffer without bound), and
// what went wrong is put in words that hold no request data (fetch's errors
// may quote the URL, and with it a key or an account).

/** Why an answer's body could not be read: too large, or the connection broke off meanwhile. */
export type BodyProblem = { readonly kind: 'too_large'; readonly maxBytes: number } | { readonly kind: 'broke_off'; readonly cause: unknown };

/** The answer's body as UTF-8 text, at most `maxBytes`; otherwise the error `refusal` makes of the problem is thrown. */
export async function readBoundedText(response: Response, maxBytes: number, refusal: (problem: BodyProblem) => Error): Promise<string> {
  const reader = response.body?.getReader();
  if (reader === undefined) return '';
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch (cause) {
      throw refusal({ kind: 'broke_off', cause });
    }
    if (chunk.done) break;
    bytes += chunk.value.byteLength;
    if (bytes > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw refusal({ kind: 'too_large', maxBytes });
    }
    chunks.push(chunk.value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** What went wrong with a call, in words that hold no request data: who stopped waiting, or the error's name and system code. */
export function callErrorWords(error: unknown, signal: AbortSignal, deadline?: AbortSignal): string {
  if (signal.aborted) return 'Payrail stopped waiting';
  if (deadline?.aborted === true) return 'the call deadline passed';
  if (error instanceof Error) {
    const cause = (error as { cause?: { code?: unknown } }).cause;
    return typeof cause?.code === 'string' ? `${error.name}: ${cause.code}` : error.name;
  }
  return 'network error';
}
