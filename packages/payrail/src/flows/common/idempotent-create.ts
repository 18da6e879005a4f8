// Creates of the payin API that call no processor (a stored customer, a
// saved card, a recurring schedule) made at most once per Idempotency-Key
// (docs/api-decisions.md section 15). The key's reservation, the create and
// the key's reply are one transaction, so there is nothing in between to
// wait for or recover: a retry of a request that committed replays its
// reply (`replayed`), one with another body under the key is refused, and a
// refused request keeps no key (its retry runs again). On PostgreSQL a
// same-key request running meanwhile waits on the key's row and then
// replays. Keys share the charges' table, 24-hour life and pruning.
//
// The create is a store command that calls createUnderKey
// (store/payin/keyed-create.ts) in its transaction with the KeyClaim it is
// handed (null without a key) and answers its KeyedCreate: createOnceWith.
import { fail } from '../../errors.ts';
import type { Service } from '../../service.ts';
import type { Txn } from '../../store/db.ts';
import { createUnderKey, type KeyClaim, type KeyedCreate } from '../../store/payin/keyed-create.ts';
import type { Owner } from '../vault/stored-common.ts';
import { checkIdempotencyKey } from '../payin/operation-common.ts';
import { IDEMPOTENCY_KEY_TTL_MS, type KeyedRequest, keyedRequest, RunningRequests, sameRequest } from './idempotency-replay.ts';

export type { KeyClaim, KeyedCreate } from '../../store/payin/keyed-create.ts';

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

/**
 * Runs `create` (a store command given the key to reserve, null without one)
 * at most once per key: e.g.
 * `createOnceWith(owner, idem, (claim) => createCustomer(deps.db, { ...fields, claim }))`, the command
 * reading its clock in its transaction for createUnderKey's `nowMs`.
 */
export async function createOnceWith<T>(
  owner: Owner,
  idem: { readonly key: string | null; readonly operation: string; readonly body: unknown },
  create: (claim: KeyClaim | null) => Promise<KeyedCreate<T>>,
): Promise<Created<T>> {
  const key = idem.key;
  if (key === null) return answerOf(await create(null), null);
  checkIdempotencyKey(key);
  const request = keyedRequest(key, idem.operation, idem.body);
  const claim: KeyClaim = { sourceId: owner.sourceId, idemKey: key, requestHash: request.requestHash, ttlMs: IDEMPOTENCY_KEY_TTL_MS };
  return running.run(`${owner.sourceId}\n${key}`, request.requestHash, async () => answerOf(await create(claim), request)) as Promise<Created<T>>;
}

/** A held key replays its reply when it is this request's create's; otherwise the key is another request's. */
function answerOf<T>(created: KeyedCreate<T>, request: KeyedRequest | null): Created<T> {
  if (created.kind === 'created') return { view: created.view, replayed: false };
  // A key whose reply is not a create's (a charge's, still unanswered) is another operation's.
  if (request === null || !sameRequest(created.requestHash, request) || created.statusCode !== 200) fail('idempotency_key_reused');
  return { view: JSON.parse(created.responseJson) as T, replayed: true };
}

/**
 * The create handed a transaction: kept for the vault's customers and
 * schedules until their creates are store commands run by createOnceWith.
 */
export async function createOnce<T>(
  deps: Pick<Service, 'db' | 'clock'>,
  owner: Owner,
  idem: { readonly key: string | null; readonly operation: string; readonly body: unknown },
  create: (tx: Txn) => Promise<T>,
): Promise<Created<T>> {
  if (idem.key === null) return { view: await deps.db.write(create), replayed: false };
  return createOnceWith(owner, idem, (claim) => deps.db.write((tx) => createUnderKey(tx, claim, deps.clock.nowMs(), () => create(tx))));
}
