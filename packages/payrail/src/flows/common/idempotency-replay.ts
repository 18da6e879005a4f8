// What every POST of the payin API does with an Idempotency-Key (docs/api-decisions.md
// section 8), written once for charges, captures, voids, refunds and
// verifies: same-key requests in this process share one run; across
// processes the key's reservation in the store decides, and a request that
// finds the key taken replays the stored reply, refuses another body, or
// waits (bounded) while the first request may still be waiting for the
// processor.
import crypto from 'node:crypto';
import { canonicalJson } from '../../domain/canonical-json.ts';
import { fail } from '../../errors.ts';
import type { Service } from '../../service.ts';
import { IN_PROGRESS, OUTCOME_UNKNOWN } from '../../store/idempotency.ts';
import { readIdempotencyKey } from '../../store/payin/charge-reads.ts';

/** A reply ready to send: HTTP status and the JSON text (stored as is for idempotent replays). */
export interface Reply {
  readonly statusCode: number;
  readonly json: string;
  /** The answer of an earlier request with the same Idempotency-Key (sent with `Idempotent-Replayed: true`). */
  readonly replayed?: boolean;
}

const asReplay = (reply: Reply): Reply => ({ ...reply, replayed: true });

/** How often a waiting retry looks at the key. */
const IDEMPOTENCY_POLL_MS = 50;
/** A key's request may take its processor deadline plus this margin for its two transactions. */
export const IDEMPOTENCY_WAIT_MARGIN_MS = 5_000;
/** Idempotency keys are kept 24 hours. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60_000;
/** Idempotency-Keys are 1 to 255 printable ASCII characters. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** An Idempotency-Key and what it remembers of its request. */
export interface KeyedRequest {
  readonly key: string;
  /**
   * Stored with the key: a hash of the operation and of its body in
   * canonical form (src/domain/canonical-json.ts), so a retry whose client
   * wrote the same fields in another order is the same request.
   */
  readonly requestHash: string;
  /**
   * The form keys reserved before that held: a hash of the body as its
   * client ordered it (a charge's without its operation). Such a key still
   * matches its retries until it expires (IDEMPOTENCY_KEY_TTL_MS), so
   * nobody retrying across an upgrade is refused. Computed only when a
   * stored hash is of that form (sameRequest), not for every keyed request.
   */
  legacyHash(): string;
}

/** Marks the canonical form, so it can never equal a hash of the earlier form. */
const CANONICAL_HASH_PREFIX = 'c1:';

const sha256Hex = (text: string): string => crypto.hash('sha256', text, 'hex');

/** The key of `operation` with this request body; `legacy` says how keys of the earlier form hashed it. */
export function keyedRequest(key: string, operation: string, body: unknown, legacy: 'operation-and-body' | 'body-only' = 'operation-and-body'): KeyedRequest {
  return {
    key,
    requestHash: `${CANONICAL_HASH_PREFIX}${sha256Hex(`${operation}\n${canonicalJson(body)}`)}`,
    legacyHash: () => {
      const asSent = JSON.stringify(body);
      return sha256Hex(legacy === 'body-only' ? asSent : `${operation}\n${asSent}`);
    },
  };
}

/** Whether a key's stored hash is of this request (in either form). */
export function sameRequest(storedHash: string, request: KeyedRequest): boolean {
  if (storedHash === request.requestHash) return true;
  return !storedHash.startsWith(CANONICAL_HASH_PREFIX) && storedHash === request.legacyHash();
}

/**
 * Same-key requests running in this process (by `slot`: source and key): a
 * second one shares the first's answer, marked as a replay by `asReplayOf`,
 * or is refused for another body.
 */
export class RunningRequests<T extends { readonly replayed?: boolean } = Reply> {
  private readonly running = new Map<string, { requestHash: string; answer: Promise<T> }>();

  constructor(private readonly asReplayOf: (answer: T) => T = (answer) => ({ ...answer, replayed: true })) {}

  run(slot: string, requestHash: string, start: () => Promise<T>): Promise<T> {
    const current = this.running.get(slot);
    if (current !== undefined) {
      if (current.requestHash !== requestHash) fail('idempotency_key_reused');
      return current.answer.then(this.asReplayOf);
    }
    const answer = start().finally(() => this.running.delete(slot));
    this.running.set(slot, { requestHash, answer });
    return answer;
  }
}

/**
 * A same-key request was (or is being) made elsewhere: refuse another body;
 * replay its reply; answer at once while its outcome is unknown (its request
 * gave up on the processor, or died); wait only while its request may still
 * be waiting for the processor (`waitMs` from the key's reservation, by the
 * service clock, and bounded by a count of looks for a clock that stands
 * still). Past that, `current` answers from the record's current state.
 */
export async function replayKey(
  deps: Pick<Service, 'db' | 'clock'>,
  sourceId: string,
  idem: KeyedRequest,
  waitMs: number,
  current: (reservedAtMs: number) => Promise<Reply>,
): Promise<Reply> {
  const looksMax = Math.ceil(waitMs / IDEMPOTENCY_POLL_MS);
  for (let looks = 1; ; looks++) {
    const row = await readIdempotencyKey(deps.db, { sourceId, idemKey: idem.key });
    if (row === undefined) fail('internal_server_error', 'the request holding this Idempotency-Key could not be read; retry');
    if (!sameRequest(row.request_hash, idem)) fail('idempotency_key_reused');
    if (row.status_code === OUTCOME_UNKNOWN) return asReplay({ statusCode: 200, json: row.response_json });
    if (row.status_code !== IN_PROGRESS) return asReplay({ statusCode: row.status_code, json: row.response_json });
    if (deps.clock.nowMs() >= row.created_at_ms + waitMs || looks >= looksMax) return asReplay(await current(row.created_at_ms));
    await new Promise((resolve) => setTimeout(resolve, IDEMPOTENCY_POLL_MS));
  }
}
