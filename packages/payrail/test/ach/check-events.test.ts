// Check status events reach webhook endpoints (behaviour.md section 17):
// migration 030 gives accept.blue-format endpoints registered before checks
// the three status types (their stored lists are kept otherwise); a Payrail
// endpoint subscribed to charge.originated/settled/returned gets those and
// nothing else; an accept.blue endpoint gets them as type "status" with
// their subType; each event once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ACCEPTBLUE_EVENT_TYPES, acceptBlueKindOf } from '../../src/domain/acceptblue-webhooks.ts';
import { eventTypesText, type EventType } from '../../src/domain/webhooks.ts';
import { advanceSandboxAchClock } from '../../src/flows/ach/sandbox-clock.ts';
import type { Db } from '../../src/store/db.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createCheck } from '../helpers/checks.ts';
import { migratePostgresFrom, migrateSqliteFrom, type RawAll } from '../helpers/migrations.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const CHECK_STATUS_TYPES: EventType[] = ['charge.originated', 'charge.settled', 'charge.returned'];
const BEFORE_CHECKS = ACCEPTBLUE_EVENT_TYPES.filter((type) => !CHECK_STATUS_TYPES.includes(type));

const endpoint = (id: string, format: string, types: string, number: number | null) =>
  `INSERT INTO webhook_endpoints (id, merchant_id, url, event_types, enabled, secret_enc, created_at_ms, updated_at_ms, format, description, number)
   VALUES ('${id}', 'mer_a', 'https://hooks.example.com/${id}', '${types}', 1, EMPTY_BYTES, 1, 1, '${format}', ${number === null ? 'NULL' : "'d'"}, ${number ?? 'NULL'})`;

const SEED = [
  "INSERT INTO merchants (id, name, payouts_must_link, created_at_ms) VALUES ('mer_a', 'A', 0, 1)",
  endpoint('we_ab', 'acceptblue', eventTypesText(BEFORE_CHECKS), 1),
  endpoint('we_ab_all', 'acceptblue', '', 2),
  endpoint('we_own', 'payrail', ' charge.approved ', null),
];

async function typesOf(db: Db): Promise<Record<string, string>> {
  const rows = await db.read((tx) => tx.all<{ id: string; event_types: string }>('SELECT id, event_types FROM webhook_endpoints ORDER BY id'));
  return Object.fromEntries(rows.map((row) => [row.id, row.event_types]));
}

const MIGRATION_CASE = {
  version: 30,
  seed: SEED,
  snapshot: async (all: RawAll) => Object.fromEntries((await all('SELECT id, event_types FROM webhook_endpoints')).map((row) => [row.id, row.event_types])),
  check: async (db: Db, before: Record<string, unknown>) => {
    assert.equal(before.we_ab, eventTypesText(BEFORE_CHECKS));
    const after = await typesOf(db);
    // The accept.blue endpoint now lists exactly what one registered today does.
    assert.deepEqual(new Set(after.we_ab!.trim().split(' ')), new Set(ACCEPTBLUE_EVENT_TYPES));
    assert.ok(after.we_ab!.startsWith(' ') && after.we_ab!.endsWith(' '));
    assert.equal(after.we_ab_all, '');
    assert.equal(after.we_own, ' charge.approved ');
  },
};

describe('migration 030: accept.blue endpoints hear of check statuses', () => {
  it('SQLite', () => migrateSqliteFrom(MIGRATION_CASE));
  it('PostgreSQL', () => migratePostgresFrom(MIGRATION_CASE));
});

describe('accept.blue event kinds of check statuses', () => {
  it('are type "status" with the new status as subType', () => {
    const facts = { status: 'approved' } as Parameters<typeof acceptBlueKindOf>[1];
    for (const type of CHECK_STATUS_TYPES) {
      assert.deepEqual(acceptBlueKindOf(type, facts), { event: 'transaction', type: 'status', subType: type.slice('charge.'.length) });
    }
  });
});

for (const kind of STORE_KINDS) {
  describe(`check status deliveries (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
      t.clock.set(Date.UTC(2026, 10, 30, 10, 0));
    });
    after(async () => t.close());

    it('reach the endpoints subscribed to them, once each', async () => {
      const merchant = await t.newMerchant();
      const insert = (id: string, format: string, types: string, number: number | null) =>
        t.service.db.write((tx) =>
          tx.run(
            `INSERT INTO webhook_endpoints (id, merchant_id, url, event_types, enabled, secret_enc, created_at_ms, updated_at_ms, format, description, number)
             VALUES (?, ?, ?, ?, 1, ?, 0, 0, ?, ?, ?)`,
            [id, merchant.merchant_id, `https://hooks.example.com/${id}`, types, Buffer.alloc(1), format, number === null ? null : 'd', number],
          ),
        );
      await insert(`we_ab_${kind}`, 'acceptblue', eventTypesText(ACCEPTBLUE_EVENT_TYPES), 9001);
      await insert(`we_own_${kind}`, 'payrail', eventTypesText(CHECK_STATUS_TYPES), null);
      // Settles, then is returned R01.
      const pk = await createCheck(t.service, merchant, { amountCents: 2_500, accountNumber: '31410001' });
      await advanceSandboxAchClock(t.service, { merchantId: merchant.merchant_id, businessDays: 3 });
      await advanceSandboxAchClock(t.service, { merchantId: merchant.merchant_id, businessDays: 1 });
      await advanceSandboxAchClock(t.service, { merchantId: merchant.merchant_id, businessDays: 5 });
      const delivered = async (endpointId: string) =>
        (
          await t.service.db.read((tx) =>
            tx.all<{ type: string; data_json: string }>(
              'SELECT e.type, e.data_json FROM webhook_deliveries d JOIN events e ON e.pk = d.event_pk WHERE d.endpoint_id = ? ORDER BY e.pk',
              [endpointId],
            ),
          )
        )
          .filter((row) => row.data_json.includes(String(pk)))
          .map((row) => row.type);
      assert.deepEqual(await delivered(`we_own_${kind}`), CHECK_STATUS_TYPES);
      assert.deepEqual(await delivered(`we_ab_${kind}`), ['charge.approved', ...CHECK_STATUS_TYPES]);
    });
  });
}
