// Creates of the payin API that call no processor (a stored customer, a
// saved card, a recurring schedule) made at most once per Idempotency-Key
// (docs/api-decisions.md section 15). The key's reservation, the create and
// the key's reply are one transaction, so there is nothing in between to
// wait for or recover: a retry of a request that committed replays its
// reply (`replayed`), one with another body under the key is refused, and a
// refused request keeps no key (its retry runs again). On PostgreSQL a
// same-key request running meanwhile waits on the key's row and then
// replays. Keys share the charges' table, 24-hour life and pruning.
import type { Service } from '../../service.ts';
import type { Txn } from '../../store/db.ts';
import { completeKey, getKey, reserveKey } from '../../store/idempotency.ts';
import { fail } from '../../errors.ts';
import { checkIdempotencyKey } from '../payin/operation-common.ts';
import { IDEMPOTENCY_KEY_TTL_MS } from '../payin/charge.ts';
import { type KeyedRequest, keyedRequest, RunningRequests, sameRequest } from './idempotency-replay.ts';
import type { Owner } from '../vault/stored-common.ts';

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

export async function createOnce<T>(
  deps: Pick<Service, 'db' | 'clock'>,
  owner: Owner,
  idem: { readonly key: string | null; readonly operation: string; readonly body: unknown },
  create: (tx: Txn) => Promise<T>,
): Promise<Created<T>> {
  const key = idem.key;
  if (key === null) return { view: await deps.db.write(create), replayed: false };
  checkIdempotencyKey(key);
  const request = keyedRequest(key, idem.operation, idem.body);
  return running.run(`${owner.sourceId}\n${key}`, request.requestHash, () => createWithKey(deps, owner, request, create)) as Promise<Created<T>>;
}

async function createWithKey<T>(
  deps: Pick<Service, 'db' | 'clock'>,
  owner: Owner,
  request: KeyedRequest,
  create: (tx: Txn) => Promise<T>,
): Promise<Created<T>> {
  return deps.db.write(async (tx) => {
    const nowMs = deps.clock.nowMs();
    const { key, requestHash } = request;
    const reserved = await reserveKey(tx, { sourceId: owner.sourceId, idemKey: key, requestHash, nowMs, staleAtOrBeforeMs: nowMs - IDEMPOTENCY_KEY_TTL_MS });
    if (!reserved) {
      const held = await getKey(tx, owner.sourceId, key);
      if (held === undefined) throw new Error(`Idempotency-Key of source ${owner.sourceId} neither reserved nor held`);
      // A key whose reply is not a create's (a charge's, still unanswered) is another operation's.
      if (!sameRequest(held.request_hash, request) || held.status_code !== 200) fail('idempotency_key_reused');
      return { view: JSON.parse(held.response_json) as T, replayed: true };
    }
    const view = await create(tx);
    await completeKey(tx, owner.sourceId, key, 200, JSON.stringify(view));
    return { view, replayed: false };
  });
}
