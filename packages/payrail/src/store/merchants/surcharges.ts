// A merchant's surcharge settings (table merchant_surcharges, migration 017):
// the audited change, and the read every card charge makes, kept in memory
// while nothing changed them (security-cache.ts: the table is among those
// whose writes, by any process, end what was kept).
import { NO_SURCHARGES, type PaymentType, type SurchargeSetting, type SurchargeSettings } from '../../domain/surcharge.ts';
import { type AuditNote, appendAuditNote } from '../audit-events.ts';
import type { Db, Tx } from '../db.ts';
import { lockMerchant } from '../merchants.ts';
import { surchargeSettingsCached } from '../security-cache.ts';

interface SurchargeRow {
  readonly payment_type: PaymentType;
  readonly kind: 'percent' | 'currency';
  readonly percent_thousandths: number | string | null;
  readonly amount_cents: number | string | null;
}

function settingOf(row: SurchargeRow): SurchargeSetting {
  return row.kind === 'percent'
    ? { kind: 'percent', thousandthsOfPercent: Number(row.percent_thousandths) }
    : { kind: 'currency', amountCents: Number(row.amount_cents) };
}

/** The merchant's settings as committed (a type without a row: none). Exported for the cache, which reads through it. */
export async function readSurchargeSettings(tx: Tx, merchantId: string): Promise<SurchargeSettings> {
  const rows = await tx.all<SurchargeRow>('SELECT payment_type, kind, percent_thousandths, amount_cents FROM merchant_surcharges WHERE merchant_id = ?', [
    merchantId,
  ]);
  const settings: Record<PaymentType, SurchargeSetting> = { ...NO_SURCHARGES };
  for (const row of rows) settings[row.payment_type] = settingOf(row);
  return settings;
}

/** The merchant's settings, as a charge reads them: from memory while no write may have changed them. */
export function surchargeSettingsOf(db: Db, merchantId: string): Promise<SurchargeSettings> {
  return surchargeSettingsCached(db, merchantId, (tx) => readSurchargeSettings(tx, merchantId));
}

/** The settings of an existing merchant (undefined: no such merchant), as committed; for the operator and the panel. */
export async function merchantSurchargeSettings(db: Db, merchantId: string): Promise<SurchargeSettings | undefined> {
  return db.read(async (tx) =>
    (await tx.get('SELECT id FROM merchants WHERE id = ?', [merchantId])) === undefined ? undefined : readSurchargeSettings(tx, merchantId),
  );
}

export type SurchargeChanged = { readonly kind: 'changed'; readonly settings: SurchargeSettings } | { readonly kind: 'not_found' };

/** Sets the surcharge of some payment types of a merchant (none removes it), audited; the others keep theirs. */
export async function setSurcharges(
  db: Db,
  input: { merchantId: string; changes: ReadonlyArray<readonly [PaymentType, SurchargeSetting]>; nowMs: number; audit: AuditNote },
): Promise<SurchargeChanged> {
  return db.write(async (tx): Promise<SurchargeChanged> => {
    if (!(await lockMerchant(tx, input.merchantId))) return { kind: 'not_found' };
    for (const [paymentType, setting] of input.changes) {
      if (setting.kind === 'none') {
        await tx.run('DELETE FROM merchant_surcharges WHERE merchant_id = ? AND payment_type = ?', [input.merchantId, paymentType]);
        continue;
      }
      const percent = setting.kind === 'percent' ? setting.thousandthsOfPercent : null;
      const cents = setting.kind === 'currency' ? setting.amountCents : null;
      await tx.run(
        `INSERT INTO merchant_surcharges (merchant_id, payment_type, kind, percent_thousandths, amount_cents, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (merchant_id, payment_type) DO UPDATE SET
           kind = excluded.kind, percent_thousandths = excluded.percent_thousandths, amount_cents = excluded.amount_cents, updated_at_ms = excluded.updated_at_ms`,
        [input.merchantId, paymentType, setting.kind, percent, cents, input.nowMs],
      );
    }
    await appendAuditNote(tx, input.audit);
    return { kind: 'changed', settings: await readSurchargeSettings(tx, input.merchantId) };
  });
}

/** What the surcharge lookup learns of a saved source of the merchant: its payment type, or nothing (unknown, deleted, another merchant's). */
export async function paymentTypeOfSource(
  db: Db,
  input: {
    merchantId: string;
    source: { kind: 'method'; methodPk: number } | { kind: 'reference'; chargePk: number } | { kind: 'token'; cardRef: string };
  },
): Promise<PaymentType | null> {
  const source = input.source;
  return db.read(async (tx) => {
    // A saved method and an earlier transaction are a card or a check (migration 029); a token is always a card.
    const found =
      source.kind === 'method'
        ? await tx.get<{ payment_type: PaymentType }>(
            'SELECT method_type AS payment_type FROM payment_methods WHERE pk = ? AND merchant_id = ? AND deleted_at_ms IS NULL',
            [source.methodPk, input.merchantId],
          )
        : source.kind === 'token'
          ? await tx.get<{ payment_type: PaymentType }>("SELECT 'card' AS payment_type FROM card_tokens WHERE card_ref = ? AND merchant_id = ?", [
              source.cardRef,
              input.merchantId,
            ])
          : await tx.get<{ payment_type: PaymentType }>(`SELECT payment_type FROM charges WHERE pk = ? AND (merchant_id = ?) IS TRUE`, [
              source.chargePk,
              input.merchantId,
            ]);
    return found === undefined ? null : found.payment_type;
  });
}
