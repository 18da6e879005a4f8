// Migration 036 (how long a charge keeps its card for `ref-` charges, issue 39
// finding 4) on a store that holds kept cards, through the store's own
// migrate(), on both dialects: voided and expired authorizations' copies are
// erased at once, a save_card charge's keeps 13 months from when it was made,
// any other charge's 24 hours (so the worker's next round erases it), and
// every merchant starts with the reference-cards setting off.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { REFERENCE_CARD_BRIEF_MS, REFERENCE_CARD_RETENTION_MS } from '../../src/domain/reference-card-retention.ts';
import type { Db } from '../../src/store/db.ts';
import { migratePostgresFrom, migrateSqliteFrom } from '../helpers/migrations.ts';

const MADE_AT_MS = 1_000;

/** A charge as kept before migration 036: its card_number_enc erased, its ref_card_enc set below. */
const CHARGE = (status: string, stage: string | null, saveCardRef: string | null) =>
  `INSERT INTO charges (merchant_id, source_id, status, amount_cents, currency, card_type, last4, bin, expiry_month, expiry_year, card_number_enc, request_json, created_at_ms, updated_at_ms, stage, save_card_ref)
   VALUES ('mer_a', 'src_a', '${status}', 500, 'USD', 'Visa', '1111', '411111', 12, 2035, EMPTY_BYTES, '{}', ${MADE_AT_MS}, ${MADE_AT_MS}, ${stage === null ? 'NULL' : `'${stage}'`}, ${saveCardRef === null ? 'NULL' : `'${saveCardRef}'`})`;

const SEED = [
  "INSERT INTO merchants (id, name, payouts_must_link, created_at_ms) VALUES ('mer_a', 'A', 0, 1)",
  "INSERT INTO sources (id, merchant_id, name, created_at_ms) VALUES ('src_a', 'mer_a', 'S', 1)",
  CHARGE('approved', 'captured', null),
  CHARGE('approved', 'captured', 'abcdefghijklmnop'),
  CHARGE('approved', 'voided', null),
  CHARGE('approved', 'expired', null),
  CHARGE('pending', null, null),
  CHARGE('declined', null, null),
  // Every charge kept a copy (a declined one only if its erasure was missed).
  'UPDATE charges SET ref_card_enc = card_number_enc',
];

async function check(db: Db): Promise<void> {
  const rows = await db.read((tx) =>
    tx.all<{ kept: number; ref_card_until_ms: number | null }>(
      'SELECT CASE WHEN ref_card_enc IS NULL THEN 0 ELSE 1 END AS kept, ref_card_until_ms FROM charges ORDER BY pk',
    ),
  );
  const brief = MADE_AT_MS + REFERENCE_CARD_BRIEF_MS;
  assert.deepEqual(
    rows.map((r) => [Number(r.kept), r.ref_card_until_ms === null ? null : Number(r.ref_card_until_ms)]),
    [
      [1, brief],
      [1, MADE_AT_MS + REFERENCE_CARD_RETENTION_MS],
      [0, null],
      [0, null],
      [1, brief],
      [0, null],
    ],
  );
  const merchant = await db.read((tx) => tx.get<{ keeps_reference_cards: number }>("SELECT keeps_reference_cards FROM merchants WHERE id = 'mer_a'"));
  assert.equal(Number(merchant?.keeps_reference_cards), 0);
}

describe('migration 036: reference card retention', () => {
  const c = { version: 36, seed: SEED, snapshot: async () => undefined, check };
  it('finding 4: sqlite', () => migrateSqliteFrom(c));
  it('finding 4: postgres', () => migratePostgresFrom(c));
});
