// The re-seal job: moves sealed data to the newest card-data key, one
// bounded batch per call, column by column (store/card-keys.ts
// SEALED_TARGETS). Each value is opened with the key its header names and
// sealed again under the sealing key (never sealed over its sealed form);
// a saved method's fingerprint is made again from the opened number. The
// batch and the job's position are written in one transaction, each value
// only if it still holds what was read, so a job killed midway resumes
// after its last committed batch and nothing is lost or sealed twice.
//
// A value that cannot be opened (under a key this process does not hold, a
// retired one, or damaged) is logged by its row and key ids and left as it
// is; the position moves past it so the rest of the column is still
// re-sealed. It stays counted under its old key (keys status), so that key
// is not retired while it holds the value; the next pass tries it again.
//
// Nonce data is not re-sealed (its key needs the nonce, which is not
// stored): nonces live 15 minutes and are then deleted. PIN hashes need the
// PIN: they are made again at each PIN's next success (flows/access).
import { fingerprintKeyOf, sealedKeyOf } from '../../crypto/card-cipher.ts';
import { cardCipherFor, keyRingFor } from '../../crypto/card-key.ts';
import { webhookSecretCipherFor, webhookSecretKeyOf } from '../../crypto/webhook-secret.ts';
import { Secret } from '../../domain/secret.ts';
import {
  clearResealPositions,
  type Resealed,
  resealPositions,
  SEALED_TARGETS,
  type SealedRow,
  type SealedTarget,
  sealedBatch,
  writeResealed,
} from '../../store/card-keys.ts';
import { checkFingerprint } from '../vault/check-methods.ts';
import type { KeysContext } from './rotation.ts';

/** Rows read per batch: one short transaction each, so charges never wait long behind it. */
export const RESEAL_BATCH_ROWS = 200;

export interface ResealRound {
  /** Values re-sealed (or fingerprints made again) in this call. */
  readonly resealed: number;
  /** Rows read (re-sealed or found already under the sealing key). */
  readonly scanned: number;
  /** Whether every column is done for the sealing key. */
  readonly finished: boolean;
}

/**
 * One batch of the first column not yet done for the sealing key. A column
 * is done once a pass over it reached its end; a new sealing key starts
 * every column again from its start.
 */
export async function resealBatch(context: KeysContext, batchRows = RESEAL_BATCH_ROWS): Promise<ResealRound> {
  const cipher = cardCipherFor(context.config);
  const keyId = cipher.sealingKeyId;
  const positions = await resealPositions(context.db);
  for (const target of SEALED_TARGETS) {
    if (target.nonce) continue;
    const position = positions.get(target.name);
    const current = position !== undefined && position.keyId === keyId;
    if (current && position.done) continue;
    const afterKey = current ? position.afterKey : null;
    const rows = await sealedBatch(context.db, target, afterKey, batchRows);
    const batch = rows.flatMap((row) => resealed(context, target, row, keyId));
    const last = rows.at(-1)?.rowKey ?? afterKey;
    const done = rows.length < batchRows;
    const count = await writeResealed(context.db, target, keyId, batch, { afterKey: last, done }, context.clock.nowMs());
    return { resealed: count, scanned: Math.max(rows.length, 1), finished: false };
  }
  return { resealed: 0, scanned: 0, finished: true };
}

function resealed(context: KeysContext, target: SealedTarget, row: SealedRow, keyId: number): Resealed[] {
  if (target.kind === 'webhook') {
    const from = webhookSecretKeyOf(row.sealed);
    if (from === null || from === keyId) return [];
    const webhook = webhookSecretCipherFor(context.config);
    const secret = opened(context, target, row, from, () => webhook.open(row.sealed, row.contextId));
    return secret === null ? [] : [{ rowKey: row.rowKey, from: row.sealed, to: webhook.seal(secret, row.contextId) }];
  }
  const found = sealedKeyOf(row.sealed);
  const method = row.method;
  const fingerprintStale = method !== undefined && method.fingerprint !== null && fingerprintKeyOf(method.fingerprint) !== keyId;
  if (found === null || found.forNonce || (found.keyId === keyId && !fingerprintStale)) return [];
  const cipher = cardCipherFor(context.config);
  const plain = opened(context, target, row, found.keyId, () => cipher.open(row.sealed, target.field, row.contextId));
  if (plain === null) return [];
  const to = cipher.seal(plain, target.field, row.contextId);
  if (method === undefined) return [{ rowKey: row.rowKey, from: row.sealed, to }];
  let fingerprint: string | undefined;
  if (method.fingerprint !== null) {
    fingerprint =
      method.methodType === 'check' && method.routingNumber !== null
        ? checkFingerprint(cipher, method.merchantId, method.routingNumber, plain)
        : cipher.fingerprint(new Secret(plain.reveal()), method.merchantId);
  }
  return [{ rowKey: row.rowKey, from: row.sealed, to, ...(fingerprint === undefined ? {} : { fingerprint }) }];
}

/** The opened value, or null (logged: ids and the error's class only, never data) when it cannot be opened. */
function opened<T>(context: KeysContext, target: SealedTarget, row: SealedRow, fromKeyId: number, open: () => T): T | null {
  try {
    return open();
  } catch (error) {
    const reason = error instanceof Error ? error.name : 'unknown';
    context.log.warn(
      { column: target.name, row: row.rowKey, keyId: fromKeyId, reason },
      'a sealed value could not be opened; left under its key, re-sealing goes on',
    );
    return null;
  }
}

/** What the job needs to know without asking the store: how many keys this process holds, and which seals. */
export function resealState(context: Pick<KeysContext, 'config'>): { activeKeys: number; sealingKeyId: number } {
  const ring = keyRingFor(context.config);
  return { activeKeys: ring.ids().length, sealingKeyId: ring.sealing().id };
}

/** Starts every column over (a later pass finds what was sealed under an older key after the last one passed). */
export async function restartReseal(context: Pick<KeysContext, 'db'>): Promise<void> {
  await clearResealPositions(context.db);
}
