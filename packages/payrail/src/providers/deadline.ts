// Bounding a connector call. Payrail hands every connector call an
// AbortSignal that fires after a timeout, but a connector that ignores it
// (or hangs before it looks) must still not hold up the caller: the worker
// runs a bounded number of calls at once, so one hung call would stall every
// transfer (or charge) behind it.

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

/**
 * Runs `call` with a signal that fires after `timeoutMs`, and stops waiting
 * for it then (untilAborted). A call that throws at once rejects the same
 * way. The deadline's timer keeps the process alive until the call ends
 * (AbortSignal.timeout's would not), so a hung call always ends at its
 * deadline, even when nothing else is pending.
 */
export function withDeadline<T>(timeoutMs: number, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError')), timeoutMs);
  let work: Promise<T>;
  try {
    work = call(controller.signal);
  } catch (error) {
    clearTimeout(timer);
    return Promise.reject(error);
  }
  return untilAborted(work, controller.signal).finally(() => clearTimeout(timer));
}
