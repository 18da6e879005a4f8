// Saved cards of stored customers (docs/api-decisions.md section 15). The
// card number is kept sealed (src/crypto/card-cipher.ts); deleting a method
// erases the sealed number and the fingerprint in the same statement that
// marks it deleted, so nothing is left to open. Reads name the merchant.
// A saved check (method_type 'check', migration 029) lives in the same table:
// its account number sealed where a card's number is, its last four in
// last4, card_type and bin empty, expiry 0/0 (so the fingerprint-and-expiry
// index also makes one method per bank account and customer).
import type { Tx } from './db.ts';

export type MethodType = 'card' | 'check';

export interface PaymentMethodRow {
  pk: number;
  method_type: MethodType;
  merchant_id: string;
  customer_pk: number;
  source_id: string;
  card_type: string;
  last4: string;
  bin: string;
  expiry_month: number;
  expiry_year: number;
  name: string | null;
  avs_address: string | null;
  avs_zip: string | null;
  /** A check's bank routing number (null for a card). */
  routing_number: string | null;
  /** A check's account type as the request wrote it ("Checking" or "checking"; null for a card). */
  account_type: string | null;
  /** A check's SEC code (null for a card). */
  sec_code: string | null;
  created_at_ms: number;
}

export interface SealedPaymentMethod extends PaymentMethodRow {
  card_number_enc: Buffer;
  /** The network transaction id of the card's first authorization (migration 023), null until known. */
  network_transaction_id: string | null;
}

const COLUMNS =
  'pk, method_type, merchant_id, customer_pk, source_id, card_type, last4, bin, expiry_month, expiry_year, name, avs_address, avs_zip, routing_number, account_type, sec_code, created_at_ms';
const LIVE = 'deleted_at_ms IS NULL';
/** What a deleted method keeps in place of its sealed card number. */
const ERASED = Buffer.alloc(0);

function rowOf<T extends PaymentMethodRow>(row: T): T {
  return {
    ...row,
    pk: Number(row.pk),
    customer_pk: Number(row.customer_pk),
    expiry_month: Number(row.expiry_month),
    expiry_year: Number(row.expiry_year),
    created_at_ms: Number(row.created_at_ms),
  };
}

export interface NewPaymentMethod {
  merchant_id: string;
  customer_pk: number;
  source_id: string;
  card_number_enc: Buffer;
  fingerprint: string;
  card_type: string;
  last4: string;
  bin: string;
  expiry_month: number;
  expiry_year: number;
  name: string | null;
  avs_address: string | null;
  avs_zip: string | null;
  /** Known when the card was saved from a transaction or token that recorded one (migration 023). */
  network_transaction_id?: string | null;
}

/**
 * Saves the card, unless the customer has it already with the same expiry:
 * then returns the existing method's id as `duplicateOf` and inserts nothing
 * (one statement, the unique fingerprint-and-expiry index decides between
 * concurrent saves).
 */
export async function insertPaymentMethod(tx: Tx, method: NewPaymentMethod, nowMs: number): Promise<{ created: PaymentMethodRow } | { duplicateOf: number }> {
  const row = await tx.get<PaymentMethodRow>(
    `INSERT INTO payment_methods (merchant_id, customer_pk, source_id, card_number_enc, fingerprint, card_type, last4, bin, expiry_month, expiry_year, name, avs_address, avs_zip, created_at_ms, updated_at_ms, network_transaction_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (customer_pk, fingerprint, expiry_month, expiry_year) DO NOTHING RETURNING ${COLUMNS}`,
    [
      method.merchant_id,
      method.customer_pk,
      method.source_id,
      method.card_number_enc,
      method.fingerprint,
      method.card_type,
      method.last4,
      method.bin,
      method.expiry_month,
      method.expiry_year,
      method.name,
      method.avs_address,
      method.avs_zip,
      nowMs,
      nowMs,
      method.network_transaction_id ?? null,
    ],
  );
  if (row !== undefined) return { created: rowOf(row) };
  const existing = await sameCardAndExpiry(tx, method.customer_pk, method.fingerprint, method.expiry_month, method.expiry_year);
  if (existing === undefined) throw new Error('payment method insert conflicted with no row');
  return { duplicateOf: existing.pk };
}

export interface NewCheckMethod {
  merchant_id: string;
  customer_pk: number;
  source_id: string;
  /** The account number, sealed as a card number is. */
  card_number_enc: Buffer;
  /** Keyed hash of the routing and account numbers: one method per bank account and customer. */
  fingerprint: string;
  last4: string;
  name: string;
  routing_number: string;
  account_type: string;
  sec_code: string;
}

/** A check has no expiry: 0/0, so the fingerprint-and-expiry index keeps one method per account and customer. */
export const CHECK_EXPIRY = 0;

/**
 * Saves the check, unless the customer has this account already: then
 * returns that method's id as `duplicateOf` and inserts nothing (the unique
 * index decides between concurrent saves, as for cards).
 */
export async function insertCheckMethod(tx: Tx, method: NewCheckMethod, nowMs: number): Promise<{ created: PaymentMethodRow } | { duplicateOf: number }> {
  const row = await tx.get<PaymentMethodRow>(
    `INSERT INTO payment_methods (merchant_id, customer_pk, source_id, method_type, card_number_enc, fingerprint, card_type, last4, bin, expiry_month, expiry_year, name, routing_number, account_type, sec_code, created_at_ms, updated_at_ms)
     VALUES (?, ?, ?, 'check', ?, ?, '', ?, '', ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (customer_pk, fingerprint, expiry_month, expiry_year) DO NOTHING RETURNING ${COLUMNS}`,
    [
      method.merchant_id,
      method.customer_pk,
      method.source_id,
      method.card_number_enc,
      method.fingerprint,
      method.last4,
      CHECK_EXPIRY,
      CHECK_EXPIRY,
      method.name,
      method.routing_number,
      method.account_type,
      method.sec_code,
      nowMs,
      nowMs,
    ],
  );
  if (row !== undefined) return { created: rowOf(row) };
  const existing = await sameCardAndExpiry(tx, method.customer_pk, method.fingerprint, CHECK_EXPIRY, CHECK_EXPIRY);
  if (existing === undefined) throw new Error('check payment method insert conflicted with no row');
  return { duplicateOf: existing.pk };
}

/** A live saved check's sealed account number and the source it was sealed for (to fingerprint it again under a new routing number). */
export async function getSealedCheckAccount(tx: Tx, merchantId: string, pk: number): Promise<{ card_number_enc: Buffer; source_id: string } | undefined> {
  return tx.get<{ card_number_enc: Buffer; source_id: string }>(
    `SELECT card_number_enc, source_id FROM payment_methods WHERE pk = ? AND merchant_id = ? AND method_type = 'check' AND ${LIVE}`,
    [pk, merchantId],
  );
}

/** What a saved check's change may set (its account number never changes: a new account is a new method). */
export interface CheckMethodFields {
  name?: string | undefined;
  routing_number?: string | undefined;
  account_type?: string | undefined;
  sec_code?: string | undefined;
  /** With a new routing number: the account's new fingerprint. */
  fingerprint?: string | undefined;
}

export async function updateCheckMethod(
  tx: Tx,
  merchantId: string,
  pk: number,
  fields: CheckMethodFields,
  nowMs: number,
): Promise<PaymentMethodRow | undefined> {
  const names = (Object.keys(fields) as Array<keyof CheckMethodFields>).filter((name) => fields[name] !== undefined);
  const row = await tx.get<PaymentMethodRow>(
    `UPDATE payment_methods SET ${[...names.map((name) => `${name} = ?`), 'updated_at_ms = ?'].join(', ')} WHERE pk = ? AND merchant_id = ? AND method_type = 'check' AND ${LIVE} RETURNING ${COLUMNS}`,
    [...names.map((name) => fields[name] as string), nowMs, pk, merchantId],
  );
  return row === undefined ? undefined : rowOf(row);
}

/** The customer's live method with this card (by fingerprint) and expiry, if any. */
export async function sameCardAndExpiry(
  tx: Tx,
  customerPk: number,
  fingerprint: string,
  expiryMonth: number,
  expiryYear: number,
): Promise<PaymentMethodRow | undefined> {
  const row = await tx.get<PaymentMethodRow>(
    `SELECT ${COLUMNS} FROM payment_methods WHERE customer_pk = ? AND fingerprint = ? AND expiry_month = ? AND expiry_year = ?`,
    [customerPk, fingerprint, expiryMonth, expiryYear],
  );
  return row === undefined ? undefined : rowOf(row);
}

/** A live method's fingerprint (to find the same card under another expiry). */
export async function getFingerprint(tx: Tx, merchantId: string, pk: number): Promise<string | null | undefined> {
  const row = await tx.get<{ fingerprint: string | null }>(`SELECT fingerprint FROM payment_methods WHERE pk = ? AND merchant_id = ? AND ${LIVE}`, [
    pk,
    merchantId,
  ]);
  return row?.fingerprint;
}

export async function getPaymentMethod(tx: Tx, merchantId: string, pk: number): Promise<PaymentMethodRow | undefined> {
  const row = await tx.get<PaymentMethodRow>(`SELECT ${COLUMNS} FROM payment_methods WHERE pk = ? AND merchant_id = ? AND ${LIVE}`, [pk, merchantId]);
  return row === undefined ? undefined : rowOf(row);
}

/**
 * A live saved card with its sealed card number, for a card charge. A saved
 * check reads as absent here: its account number must never reach a card
 * processor as a card number.
 */
export async function getSealedPaymentMethod(tx: Tx, merchantId: string, pk: number): Promise<SealedPaymentMethod | undefined> {
  const row = await tx.get<SealedPaymentMethod>(
    `SELECT ${COLUMNS}, card_number_enc, network_transaction_id FROM payment_methods WHERE pk = ? AND merchant_id = ? AND method_type = 'card' AND ${LIVE}`,
    [pk, merchantId],
  );
  return row === undefined ? undefined : rowOf(row);
}

export async function listPaymentMethods(
  tx: Tx,
  merchantId: string,
  customerPk: number,
  page: { limit: number; offset: number; descending?: boolean },
): Promise<PaymentMethodRow[]> {
  const rows = await tx.all<PaymentMethodRow>(
    `SELECT ${COLUMNS} FROM payment_methods WHERE customer_pk = ? AND merchant_id = ? AND ${LIVE} ORDER BY pk ${page.descending === true ? 'DESC' : 'ASC'} LIMIT ? OFFSET ?`,
    [customerPk, merchantId, page.limit, page.offset],
  );
  return rows.map(rowOf);
}

/** Every live method of the merchant, oldest first or newest first when `descending`. */
export async function listMerchantPaymentMethods(
  tx: Tx,
  merchantId: string,
  page: { limit: number; offset: number; descending?: boolean },
): Promise<PaymentMethodRow[]> {
  const rows = await tx.all<PaymentMethodRow>(
    `SELECT ${COLUMNS} FROM payment_methods WHERE merchant_id = ? AND ${LIVE} ORDER BY pk ${page.descending === true ? 'DESC' : 'ASC'} LIMIT ? OFFSET ?`,
    [merchantId, page.limit, page.offset],
  );
  return rows.map(rowOf);
}

/** Changes a saved card (a saved check is changed by updateCheckMethod). */
export async function updatePaymentMethod(
  tx: Tx,
  merchantId: string,
  pk: number,
  fields: { name?: string | null; expiry_month?: number; expiry_year?: number; avs_address?: string; avs_zip?: string },
  nowMs: number,
): Promise<PaymentMethodRow | undefined> {
  const names = (Object.keys(fields) as Array<keyof typeof fields>).filter((name) => fields[name] !== undefined);
  const row = await tx.get<PaymentMethodRow>(
    `UPDATE payment_methods SET ${[...names.map((name) => `${name} = ?`), 'updated_at_ms = ?'].join(', ')} WHERE pk = ? AND merchant_id = ? AND method_type = 'card' AND ${LIVE} RETURNING ${COLUMNS}`,
    [...names.map((name) => fields[name] as string | number | null), nowMs, pk, merchantId],
  );
  return row === undefined ? undefined : rowOf(row);
}

/** Deletes the method: erases its sealed number and fingerprint. False when it is not the merchant's (or gone already). */
export async function deletePaymentMethod(tx: Tx, merchantId: string, pk: number, nowMs: number): Promise<boolean> {
  const result = await tx.run(
    `UPDATE payment_methods SET card_number_enc = ?, fingerprint = NULL, deleted_at_ms = ?, updated_at_ms = ? WHERE pk = ? AND merchant_id = ? AND ${LIVE}`,
    [ERASED, nowMs, nowMs, pk, merchantId],
  );
  return result.changes === 1;
}

/** Deletes every method of a deleted customer, as deletePaymentMethod does. */
export async function deleteCustomerPaymentMethods(tx: Tx, merchantId: string, customerPk: number, nowMs: number): Promise<number> {
  const result = await tx.run(
    `UPDATE payment_methods SET card_number_enc = ?, fingerprint = NULL, deleted_at_ms = ?, updated_at_ms = ? WHERE customer_pk = ? AND merchant_id = ? AND ${LIVE}`,
    [ERASED, nowMs, nowMs, customerPk, merchantId],
  );
  return result.changes;
}

/** Live methods of a customer (to bound how many one customer may have). */
export async function countPaymentMethods(tx: Tx, customerPk: number): Promise<number> {
  const row = await tx.get<{ n: number }>(`SELECT COUNT(*) AS n FROM payment_methods WHERE customer_pk = ? AND ${LIVE}`, [customerPk]);
  return Number(row?.n ?? 0);
}

/**
 * Records the network transaction id of a method's first approved charge,
 * unless the method knows one already (the first one stands: later charges
 * name it).
 */
export async function recordMethodNetworkTransactionId(tx: Tx, pk: number, networkTransactionId: string): Promise<void> {
  await tx.run(`UPDATE payment_methods SET network_transaction_id = ? WHERE pk = ? AND network_transaction_id IS NULL AND ${LIVE}`, [networkTransactionId, pk]);
}
