// The card-data key ring's rows (migration 032) and the sealed columns the
// re-seal job walks. Only SQL lives here: which key seals what, and how, is
// src/crypto; the rules of rotation are flows/card-keys.
import type { Db, Dialect, Tx } from './db.ts';

export interface CardKeyRow {
  readonly id: number;
  readonly provider: 'configured' | 'local' | 'vault';
  readonly wrapped: string | null;
  readonly state: 'active' | 'retired';
  readonly created_at_ms: number;
  readonly active_from_ms: number;
  readonly retired_at_ms: number | null;
  /** The key's check value (crypto/key-ring.ts keyCheckValue); null for a row recorded before migration 033 until its next load. */
  readonly key_check: string | null;
}

const KEY_COLUMNS = 'id, provider, wrapped, state, created_at_ms, active_from_ms, retired_at_ms, key_check';

export async function listCardKeys(db: Db): Promise<CardKeyRow[]> {
  const rows = await db.read((tx) => tx.all<CardKeyRow>(`SELECT ${KEY_COLUMNS} FROM card_data_keys ORDER BY id`));
  return rows.map((row) => ({
    ...row,
    id: Number(row.id),
    created_at_ms: Number(row.created_at_ms),
    active_from_ms: Number(row.active_from_ms),
    retired_at_ms: row.retired_at_ms === null ? null : Number(row.retired_at_ms),
  }));
}

/** Adds a key; false when the id is taken (another process added it first). */
export async function insertCardKey(db: Db, row: Omit<CardKeyRow, 'state' | 'retired_at_ms'>): Promise<boolean> {
  return db.write(async (tx) => {
    const done = await tx.run(
      `INSERT INTO card_data_keys (id, provider, wrapped, state, created_at_ms, active_from_ms, key_check) VALUES (?, ?, ?, 'active', ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
      [row.id, row.provider, row.wrapped, row.created_at_ms, row.active_from_ms, row.key_check],
    );
    return done.changes === 1;
  });
}

/** Records the check value of a key recorded before check values existed; false when it already has one. */
export async function recordCardKeyCheck(db: Db, id: number, keyCheck: string): Promise<boolean> {
  return db.write(async (tx) => (await tx.run('UPDATE card_data_keys SET key_check = ? WHERE id = ? AND key_check IS NULL', [keyCheck, id])).changes === 1);
}

/** What a key still protects: sealed values per column, saved-method fingerprints, PIN hashes of live credentials. */
export interface KeyUse {
  /** Sealed values per column (`table.column`). */
  readonly sealed: Readonly<Record<string, number>>;
  readonly fingerprints: number;
  readonly pin_hashes: number;
  /** Everything above; the key can retire at 0 (PIN hashes may be dropped with --force-pins). */
  readonly total: number;
}

export function emptyKeyUse(): KeyUse {
  return { sealed: {}, fingerprints: 0, pin_hashes: 0, total: 0 };
}

/** What each key id protects, read in `db`'s read transaction or the caller's. */
export async function keyUsesByKey(db: Db | Tx): Promise<Map<number, KeyUse>> {
  const sealed = new Map<number, Record<string, number>>();
  for (const target of SEALED_TARGETS) {
    for (const [id, n] of await countSealedByKey(db, target)) {
      const entry = sealed.get(id) ?? {};
      entry[target.name] = n;
      sealed.set(id, entry);
    }
  }
  const fingerprints = await countFingerprintsByKey(db);
  const pins = await countPinHashesByKey(db);
  const ids = new Set([...sealed.keys(), ...fingerprints.keys(), ...pins.keys()]);
  const uses = new Map<number, KeyUse>();
  for (const id of ids) {
    const values = sealed.get(id) ?? {};
    const f = fingerprints.get(id) ?? 0;
    const p = pins.get(id) ?? 0;
    uses.set(id, { sealed: values, fingerprints: f, pin_hashes: p, total: Object.values(values).reduce((a, b) => a + b, 0) + f + p });
  }
  return uses;
}

export type RetireOutcome =
  | { readonly retired: true; readonly pinsDropped: readonly string[] }
  | { readonly retired: false; readonly notActive: true }
  | { readonly retired: false; readonly notActive: false; readonly use: KeyUse };

/**
 * Retires an active key and drops its wrapping if nothing uses it; with
 * `dropPins`, first removes the PINs still hashed under it when they are
 * all that remains. The count and the retirement are one write transaction
 * holding the key's row (SQLite: the write transaction itself; PostgreSQL:
 * SELECT ... FOR UPDATE), so what was counted unused is what retires, and
 * PINs dropped for a retirement then refused stay (the transaction rolls
 * back).
 */
export async function retireCardKeyIfUnused(db: Db, id: number, nowMs: number, dropPins: boolean): Promise<RetireOutcome> {
  try {
    return await db.write(async (tx) => {
      const lock = tx.dialect === 'postgres' ? ' FOR UPDATE' : '';
      const row = await tx.get<{ state: string }>(`SELECT state FROM card_data_keys WHERE id = ?${lock}`, [id]);
      if (row === undefined || row.state !== 'active') return { retired: false, notActive: true } as const;
      let use = (await keyUsesByKey(tx)).get(id) ?? emptyKeyUse();
      let pinsDropped: string[] = [];
      if (dropPins && use.pin_hashes > 0 && use.total === use.pin_hashes) {
        pinsDropped = await dropPinHashesOfKey(tx, id);
        use = (await keyUsesByKey(tx)).get(id) ?? emptyKeyUse();
      }
      if (use.total > 0) throw new KeyInUse(use);
      await retireCardKeyRow(tx, id, nowMs);
      return { retired: true, pinsDropped } as const;
    });
  } catch (error) {
    if (error instanceof KeyInUse) return { retired: false, notActive: false, use: error.use };
    throw error;
  }
}

/** Rolls the retirement's transaction back (PINs dropped in it included). */
class KeyInUse extends Error {
  constructor(readonly use: KeyUse) {
    super('card-data key in use');
  }
}

/** Retires an active key and drops its wrapping (in the caller's transaction); false when it was not active. */
async function retireCardKeyRow(tx: Tx, id: number, nowMs: number): Promise<boolean> {
  const done = await tx.run(`UPDATE card_data_keys SET state = 'retired', wrapped = NULL, retired_at_ms = ? WHERE id = ? AND state = 'active'`, [nowMs, id]);
  return done.changes === 1;
}

/** Replaces a key's wrapping (after the provider's own key rotated); false when it changed meanwhile. */
export async function rewrapCardKeyRow(db: Db, id: number, from: string, to: string): Promise<boolean> {
  return db.write(
    async (tx) => (await tx.run(`UPDATE card_data_keys SET wrapped = ? WHERE id = ? AND wrapped = ? AND state = 'active'`, [to, id, from])).changes === 1,
  );
}

// ---- Sealed columns ----

/** A column holding sealed values: its row key, and what the seal is bound to. */
export interface SealedTarget {
  /** `table.column`; the re-seal job's progress is kept under it. */
  readonly name: string;
  readonly table: string;
  readonly column: string;
  readonly rowKey: string;
  /** Whether the row key is a number (else text). */
  readonly numericKey: boolean;
  /** Card data (bound to its source) or a webhook endpoint's secret (bound to the endpoint). */
  readonly kind: 'card' | 'webhook';
  readonly field: 'card_number' | 'cvv';
  /** Nonce data is sealed under a key only its nonce rebuilds: counted, never re-sealed (it lives 15 minutes). */
  readonly nonce: boolean;
}

function target(table: string, column: string, rowKey: string, numericKey: boolean, extra: Partial<SealedTarget> = {}): SealedTarget {
  return { name: `${table}.${column}`, table, column, rowKey, numericKey, kind: 'card', field: 'card_number', nonce: false, ...extra };
}

/** Every column of sealed data in the store; a new one must be added here (test/security/key-rotation.test.ts checks the schema). */
export const SEALED_TARGETS: readonly SealedTarget[] = [
  target('charges', 'card_number_enc', 'pk', true),
  target('charges', 'ref_card_enc', 'pk', true),
  target('verifications', 'card_number_enc', 'pk', true),
  target('verifications', 'ref_card_enc', 'pk', true),
  target('payment_methods', 'card_number_enc', 'pk', true),
  target('card_tokens', 'card_number_enc', 'card_ref', false),
  target('webhook_endpoints', 'secret_enc', 'id', false, { kind: 'webhook' }),
  target('nonces', 'card_number_enc', 'nonce_hash', false, { nonce: true }),
  target('nonces', 'cvv_enc', 'nonce_hash', false, { nonce: true, field: 'cvv' }),
];

/** One sealed value as the re-seal job reads it. */
export interface SealedRow {
  readonly rowKey: string;
  readonly sealed: Buffer;
  /** The source (card data) or endpoint (webhook secret) the value is bound to. */
  readonly contextId: string;
  /** payment_methods only: what its fingerprint is computed from and checked against. */
  readonly method?: {
    readonly merchantId: string;
    readonly customerPk: number;
    readonly fingerprint: string | null;
    readonly methodType: string;
    readonly routingNumber: string | null;
    readonly expiryMonth: number;
    readonly expiryYear: number;
  };
}

/** The next rows of a column after `afterKey` (in row-key order), erased and empty values left out. */
export async function sealedBatch(db: Db, target: SealedTarget, afterKey: string | null, limit: number): Promise<SealedRow[]> {
  const contextColumn = target.kind === 'webhook' ? 'id' : 'source_id';
  const methodColumns =
    target.table === 'payment_methods' ? ', merchant_id, customer_pk, fingerprint, method_type, routing_number, expiry_month, expiry_year' : '';
  const after = afterKey === null ? '' : `AND ${target.rowKey} > ?`;
  const params = afterKey === null ? [limit] : [target.numericKey ? Number(afterKey) : afterKey, limit];
  const rows = await db.read((tx) =>
    tx.all<Record<string, unknown>>(
      `SELECT ${target.rowKey} AS row_key, ${target.column} AS sealed, ${contextColumn} AS context_id${methodColumns}
       FROM ${target.table} WHERE ${target.column} IS NOT NULL ${after} ORDER BY ${target.rowKey} LIMIT ?`,
      params,
    ),
  );
  return rows.flatMap((row) => {
    const sealed = Buffer.from(row.sealed as Uint8Array);
    const base = { rowKey: String(row.row_key), sealed, contextId: String(row.context_id) };
    if (target.table !== 'payment_methods') return [base];
    return [
      {
        ...base,
        method: {
          merchantId: String(row.merchant_id),
          customerPk: Number(row.customer_pk),
          fingerprint: row.fingerprint === null ? null : String(row.fingerprint),
          methodType: String(row.method_type),
          routingNumber: row.routing_number === null ? null : String(row.routing_number),
          expiryMonth: Number(row.expiry_month),
          expiryYear: Number(row.expiry_year),
        },
      },
    ];
  });
}

/** A value re-sealed (and, for a saved method, its fingerprint made again). */
export interface Resealed {
  readonly rowKey: string;
  readonly from: Buffer;
  readonly to: Buffer;
  /** payment_methods: the new fingerprint, or undefined to leave it. */
  readonly fingerprint?: string;
}

/**
 * Writes a batch of re-sealed values and the job's new position, in one
 * transaction. Each value is replaced only if it still holds what was read
 * (a charge that finished meanwhile and erased its copy keeps it erased).
 * Returns how many were replaced.
 */
export async function writeResealed(
  db: Db,
  target: SealedTarget,
  keyId: number,
  batch: readonly Resealed[],
  position: { afterKey: string | null; done: boolean },
  nowMs: number,
): Promise<number> {
  return db.write(async (tx) => {
    let replaced = 0;
    for (const value of batch) {
      const key = target.numericKey ? Number(value.rowKey) : value.rowKey;
      if (value.fingerprint !== undefined) {
        replaced += await replaceMethod(tx, key as number, value);
      } else {
        replaced += (
          await tx.run(`UPDATE ${target.table} SET ${target.column} = ? WHERE ${target.rowKey} = ? AND ${target.column} = ?`, [value.to, key, value.from])
        ).changes;
      }
    }
    await tx.run(
      `INSERT INTO card_key_reseal (target, key_id, after_key, done, updated_at_ms) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (target) DO UPDATE SET key_id = excluded.key_id, after_key = excluded.after_key, done = excluded.done, updated_at_ms = excluded.updated_at_ms`,
      [target.name, keyId, position.afterKey ?? '', position.done ? 1 : 0, nowMs],
    );
    return replaced;
  });
}

/**
 * A saved method's number and fingerprint. When the same card (or account)
 * was saved again for the customer under the newer key before this one was
 * re-sealed, the new fingerprint would repeat that one's (the unique index
 * allows one): this older copy then keeps no fingerprint, like a method
 * saved before fingerprints existed, and both stay usable.
 */
async function replaceMethod(tx: Tx, pk: number, value: Resealed): Promise<number> {
  const duplicate = await tx.get(
    `SELECT 1 AS one FROM payment_methods o JOIN payment_methods m ON m.pk = ?
     WHERE o.customer_pk = m.customer_pk AND o.fingerprint = ? AND o.expiry_month = m.expiry_month AND o.expiry_year = m.expiry_year AND o.pk <> m.pk`,
    [pk, value.fingerprint ?? null],
  );
  const fingerprint = duplicate === undefined ? (value.fingerprint ?? null) : null;
  return (
    await tx.run('UPDATE payment_methods SET card_number_enc = ?, fingerprint = ? WHERE pk = ? AND card_number_enc = ?', [
      value.to,
      fingerprint,
      pk,
      value.from,
    ])
  ).changes;
}

export interface ResealPosition {
  readonly keyId: number;
  readonly afterKey: string | null;
  readonly done: boolean;
}

export async function resealPositions(db: Db): Promise<Map<string, ResealPosition>> {
  const rows = await db.read((tx) =>
    tx.all<{ target: string; key_id: number; after_key: string; done: number }>('SELECT target, key_id, after_key, done FROM card_key_reseal'),
  );
  return new Map(
    rows.map((row) => [row.target, { keyId: Number(row.key_id), afterKey: row.after_key === '' ? null : row.after_key, done: Number(row.done) === 1 }]),
  );
}

export async function clearResealPositions(db: Db): Promise<void> {
  await db.write((tx) => tx.run('DELETE FROM card_key_reseal'));
}

// ---- Counting what each key still protects ----

/** Reads in `db`'s own read transaction, or in a caller's transaction (retirement counts in the one that retires). */
function readIn<T>(db: Db | Tx, work: (tx: Tx) => Promise<T>): Promise<T> {
  return 'read' in db ? db.read(work) : work(db);
}

/** How many values of a column are under each key id. */
export async function countSealedByKey(db: Db | Tx, target: SealedTarget): Promise<Map<number, number>> {
  const keyed = target.kind === 'webhook' ? [2] : [3, 4];
  const c = target.column;
  const keyHex =
    db.dialect === 'sqlite'
      ? `CASE WHEN substr(${c}, 1, 1) IN (${keyed.map((f) => `x'0${f}'`).join(', ')}) THEN hex(substr(${c}, 2, 4)) ELSE '' END`
      : `CASE WHEN get_byte(${c}, 0) IN (${keyed.join(', ')}) THEN encode(substring(${c} from 2 for 4), 'hex') ELSE '' END`;
  const length = db.dialect === 'sqlite' ? `length(${c})` : `octet_length(${c})`;
  const rows = await readIn(db, (tx) =>
    tx.all<{ key_hex: string; n: number }>(
      `SELECT ${keyHex} AS key_hex, COUNT(*) AS n FROM ${target.table} WHERE ${c} IS NOT NULL AND ${length} > 0 GROUP BY 1`,
    ),
  );
  return tally(rows.map((row) => [row.key_hex === '' ? 1 : Number.parseInt(row.key_hex, 16), Number(row.n)]));
}

/** Saved methods' fingerprints per key id (`k<id>$...`; plain hex is key 1). */
export async function countFingerprintsByKey(db: Db | Tx): Promise<Map<number, number>> {
  const id = db.dialect === 'sqlite' ? "substr(fingerprint, 2, instr(fingerprint, '$') - 2)" : "split_part(substr(fingerprint, 2), '$', 1)";
  const rows = await readIn(db, (tx) =>
    tx.all<{ key_id: string; n: number }>(
      `SELECT CASE WHEN fingerprint LIKE 'k%' THEN ${id} ELSE '1' END AS key_id, COUNT(*) AS n FROM payment_methods WHERE fingerprint IS NOT NULL GROUP BY 1`,
    ),
  );
  return tally(rows.map((row) => [Number(row.key_id), Number(row.n)]));
}

function pinKeyExpression(dialect: Dialect): string {
  const id = dialect === 'sqlite' ? "substr(pin_hash, 9, instr(pin_hash, '$') - 9)" : "split_part(substr(pin_hash, 9), '$', 1)";
  // 0: the unkeyed older form (no card-data key involved; replaced at the next success).
  return `CASE WHEN pin_hash LIKE 'hmac256k%' THEN ${id} WHEN pin_hash LIKE 'hmac256$%' THEN '1' ELSE '0' END`;
}

/** Live credentials' PIN hashes per key id. */
export async function countPinHashesByKey(db: Db | Tx): Promise<Map<number, number>> {
  const rows = await readIn(db, (tx) =>
    tx.all<{ key_id: string; n: number }>(
      `SELECT ${pinKeyExpression(db.dialect)} AS key_id, COUNT(*) AS n FROM credentials WHERE pin_hash IS NOT NULL AND revoked_at_ms IS NULL GROUP BY 1`,
    ),
  );
  return tally(rows.map((row) => [Number(row.key_id), Number(row.n)]).filter(([id]) => id !== 0) as Array<[number, number]>);
}

/**
 * Removes the PIN of every credential whose PIN hash was made under `keyId`
 * (the operator retires the key without waiting for those PINs to be used):
 * such a key answers as with a wrong PIN until its source is given a new PIN.
 * Returns the credentials' ids.
 */
async function dropPinHashesOfKey(tx: Tx, keyId: number): Promise<string[]> {
  const rows = await tx.all<{ id: string }>(`SELECT id FROM credentials WHERE pin_hash IS NOT NULL AND ${pinKeyExpression(tx.dialect)} = ?`, [String(keyId)]);
  for (const row of rows) await tx.run('UPDATE credentials SET pin_hash = NULL WHERE id = ?', [row.id]);
  return rows.map((row) => row.id);
}

function tally(entries: ReadonlyArray<readonly [number, number]>): Map<number, number> {
  const counts = new Map<number, number>();
  for (const [id, n] of entries) counts.set(id, (counts.get(id) ?? 0) + n);
  return counts;
}
