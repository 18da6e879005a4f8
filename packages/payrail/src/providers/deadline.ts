// Bounding a connector call. Payrail hands every connector call an
// AbortSignal that fires after a timeout, but a connector that ignores it
// (or hangs before it looks) must still not hold up the caller: the worker
// runs a bounded number of calls at once, so one hung call would stall every
// transfer behind it.

/**
 * Settles as `work` does, or rejects with the signal's reason as soon as the
 * signal fires, whichever comes first. A late settlement of `work` is then
 * ignored; the caller treats the outcome as unknown.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
