// A scripted fetch for unit tests: each expected request is answered by the
// next step of a script (a recorded response or a thrown network error), and
// every request is kept so tests can assert exactly what was sent.
import assert from 'node:assert/strict';
import type { FetchLike } from '../src/index.ts';

export interface SentRequest {
  method: string;
  url: string;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
}

export type Step =
  | { status: number; body: unknown; headers?: Record<string, string>; expect?: { method: string; path: string } }
  | { status: number; text: string; headers?: Record<string, string>; expect?: { method: string; path: string } }
  | { network: string; cause?: unknown; expect?: { method: string; path: string } };

export interface FakeFetch {
  readonly fetch: FetchLike;
  readonly sent: SentRequest[];
  /** Asserts the whole script was used. */
  done(): void;
}

export function fakeFetch(script: Step[]): FakeFetch {
  const steps = [...script];
  const sent: SentRequest[] = [];
  const fetch: FetchLike = async (url, init) => {
    const parsed = new URL(url);
    const request: SentRequest = { method: init.method, url, path: parsed.pathname, headers: { ...init.headers }, body: init.body };
    sent.push(request);
    const step = steps.shift();
    assert.ok(step !== undefined, `unexpected request ${init.method} ${parsed.pathname}`);
    if (step.expect !== undefined) assert.deepEqual({ method: request.method, path: request.path }, step.expect);
    if ('network' in step) throw new TypeError(step.network, step.cause === undefined ? undefined : { cause: step.cause });
    const text = 'text' in step ? step.text : JSON.stringify(step.body);
    const headers = new Headers(step.headers ?? {});
    return { status: step.status, headers, text: async () => text };
  };
  return {
    fetch,
    sent,
    done() {
      assert.equal(steps.length, 0, `${steps.length} scripted response(s) were not requested`);
    },
  };
}

/** A virtual clock that only moves when the SDK sleeps. */
export function virtualTime(startMs = 1_000_000): { sleep: (ms: number) => Promise<void>; now_ms: () => number; sleeps: number[] } {
  let nowMs = startMs;
  const sleeps: number[] = [];
  return {
    sleeps,
    now_ms: () => nowMs,
    sleep: async (ms) => {
      sleeps.push(ms);
      nowMs += ms;
    },
  };
}
