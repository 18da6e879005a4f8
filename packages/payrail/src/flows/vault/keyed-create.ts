// Creates of the payin API that call no processor (a stored customer, a
// saved card, a recurring schedule) made at most once per Idempotency-Key
// (docs/api-decisions.md section 15). The store makes the key's
// reservation, the create and the key's reply one transaction
// (store/vault/keyed-create.ts), so there is nothing in between to wait for
// or recover: a retry of a request that committed replays its reply
// (`replayed`), one with another body under the key is refused, and a
// refused request keeps no key (its retry runs again). On PostgreSQL a
// same-key request running meanwhile waits on the key's row and then
// replays. Keys share the charges' table, 24-hour life and pruning.
import type { Clock } from '../../domain/clock.ts';
import { fail } from '../../errors.ts';
import type { CreateKey, KeyedAnswer } from '../../store/vault/keyed-create.ts';
import { type KeyedRequest, keyedRequest, RunningRequests, sameRequest } from '../common/idempotency-replay.ts';
import { IDEMPOTENCY_KEY_TTL_MS } from '../payin/charge.ts';
import { checkIdempotencyKey } from '../payin/operation-common.ts';
import type { Owner } from './stored-common.ts';

export interface Created<T> {
  /** What the create answers (the stored reply when replayed). */
  readonly view: T;
  /** True when an earlier request with the same key made it (sent with `Idempotent-Replayed: true`). */
  readonly replayed: boolean;
}

/**
 * Same-key creates running in this process share one run: they could
 * otherwise meet inside one group commit, where the second would find the
 * key reserved by the first and not yet answered (another process's request
 * waits on the key's row instead).
 */
const running = new RunningRequests<Created<unknown>>((created) => ({ view: created.view, replayed: true }));

/** Submits the create (a store command) under the request's key, if any; `submit` maps the command's refusals to errors. */
export async function createOnce<T>(
  clock: Clock,
  owner: Owner,
  idem: { readonly key: string | null; readonly operation: string; readonly body: unknown },
  submit: (key: CreateKey | null) => Promise<KeyedAnswer<T>>,
): Promise<Created<T>> {
  const key = idem.key;
  if (key === null) return createdOf(await submit(null), null);
  checkIdempotencyKey(key);
  const request = keyedRequest(key, idem.operation, idem.body);
  return running.run(`${owner.sourceId}\n${key}`, request.requestHash, async () => {
    const nowMs = clock.nowMs();
    const reserve = { sourceId: owner.sourceId, idemKey: key, requestHash: request.requestHash, nowMs, staleAtOrBeforeMs: nowMs - IDEMPOTENCY_KEY_TTL_MS };
    return createdOf(await submit(reserve), request);
  }) as Promise<Created<T>>;
}

function createdOf<T>(answer: KeyedAnswer<T>, request: KeyedRequest | null): Created<T> {
  if (answer.kind === 'created') return { view: answer.view, replayed: false };
  // A key whose reply is not a create's (a charge's, still unanswered) is another operation's.
  if (request === null || !sameRequest(answer.requestHash, request) || answer.statusCode !== 200) fail('idempotency_key_reused');
  return { view: JSON.parse(answer.responseJson) as T, replayed: true };
}

/** The command's answer when it created or found the key held; a refusal goes to `refuse`, which fails. */
export function answered<V, R extends { readonly kind: string }>(answer: KeyedAnswer<V> | R, refuse: (refusal: R) => never): KeyedAnswer<V> {
  if (answer.kind === 'created' || answer.kind === 'held') return answer as KeyedAnswer<V>;
  return refuse(answer as R);
}
