// A merchant's stored customers (docs/api-decisions.md section 15). Every
// read and write names the merchant, so another merchant's customer reads as
// absent; deleted customers stay (their transactions point at them) and read
// as absent too.
import type { Tx } from './db.ts';

export interface CustomerRow {
  pk: number;
  merchant_id: string;
  identifier: string;
  customer_number: string | null;
  email: string | null;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  active: number;
  website: string | null;
  alternate_phone: string | null;
  note: string | null;
  /** accept.blue Address members as sent, a JSON object (null when none was sent). */
  billing_info_json: string | null;
  shipping_info_json: string | null;
  created_at_ms: number;
}

export type CustomerFields = Pick<
  CustomerRow,
  | 'identifier'
  | 'customer_number'
  | 'email'
  | 'first_name'
  | 'last_name'
  | 'phone'
  | 'active'
  | 'website'
  | 'alternate_phone'
  | 'note'
  | 'billing_info_json'
  | 'shipping_info_json'
>;

const COLUMNS =
  'pk, merchant_id, identifier, customer_number, email, first_name, last_name, phone, active, website, alternate_phone, note, billing_info_json, shipping_info_json, created_at_ms';
const LIVE = 'deleted_at_ms IS NULL';

function rowOf(row: CustomerRow): CustomerRow {
  return { ...row, pk: Number(row.pk), active: Number(row.active), created_at_ms: Number(row.created_at_ms) };
}

export async function insertCustomer(tx: Tx, merchantId: string, fields: CustomerFields, nowMs: number): Promise<CustomerRow> {
  const row = await tx.get<CustomerRow>(
    `INSERT INTO customers (merchant_id, identifier, customer_number, email, first_name, last_name, phone, active, website, alternate_phone, note, billing_info_json, shipping_info_json, created_at_ms, updated_at_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
    [
      merchantId,
      fields.identifier,
      fields.customer_number,
      fields.email,
      fields.first_name,
      fields.last_name,
      fields.phone,
      fields.active,
      fields.website,
      fields.alternate_phone,
      fields.note,
      fields.billing_info_json,
      fields.shipping_info_json,
      nowMs,
      nowMs,
    ],
  );
  if (row === undefined) throw new Error('INSERT INTO customers returned nothing');
  return rowOf(row);
}

export async function getCustomer(tx: Tx, merchantId: string, pk: number): Promise<CustomerRow | undefined> {
  const row = await tx.get<CustomerRow>(`SELECT ${COLUMNS} FROM customers WHERE pk = ? AND merchant_id = ? AND ${LIVE}`, [pk, merchantId]);
  return row === undefined ? undefined : rowOf(row);
}

export interface CustomerFilters {
  readonly active: boolean | null;
  readonly customerNumber: string | null;
}

/** The merchant's customers, oldest first (a stable order for offset pages) or newest first when `descending`. */
export async function listCustomers(
  tx: Tx,
  merchantId: string,
  filters: CustomerFilters,
  page: { limit: number; offset: number; descending?: boolean },
): Promise<CustomerRow[]> {
  const where = ['merchant_id = ?', LIVE];
  const params: Array<string | number> = [merchantId];
  if (filters.active !== null) {
    where.push('active = ?');
    params.push(filters.active ? 1 : 0);
  }
  if (filters.customerNumber !== null) {
    where.push('customer_number = ?');
    params.push(filters.customerNumber);
  }
  params.push(page.limit, page.offset);
  const rows = await tx.all<CustomerRow>(
    `SELECT ${COLUMNS} FROM customers WHERE ${where.join(' AND ')} ORDER BY pk ${page.descending === true ? 'DESC' : 'ASC'} LIMIT ? OFFSET ?`,
    params,
  );
  return rows.map(rowOf);
}

/** Sets the given fields; returns the updated customer, or undefined when it is not the merchant's (nothing changed). */
export async function updateCustomer(tx: Tx, merchantId: string, pk: number, fields: Partial<CustomerFields>, nowMs: number): Promise<CustomerRow | undefined> {
  const names = (Object.keys(fields) as Array<keyof CustomerFields>).filter((name) => fields[name] !== undefined);
  const sets = names.map((name) => `${name} = ?`);
  const params = names.map((name) => fields[name] as string | number | null);
  const row = await tx.get<CustomerRow>(
    `UPDATE customers SET ${[...sets, 'updated_at_ms = ?'].join(', ')} WHERE pk = ? AND merchant_id = ? AND ${LIVE} RETURNING ${COLUMNS}`,
    [...params, nowMs, pk, merchantId],
  );
  return row === undefined ? undefined : rowOf(row);
}

/** Marks the customer deleted; false when it is not the merchant's or already deleted. */
export async function deleteCustomer(tx: Tx, merchantId: string, pk: number, nowMs: number): Promise<boolean> {
  const result = await tx.run(`UPDATE customers SET deleted_at_ms = ?, updated_at_ms = ? WHERE pk = ? AND merchant_id = ? AND ${LIVE}`, [
    nowMs,
    nowMs,
    pk,
    merchantId,
  ]);
  return result.changes === 1;
}
