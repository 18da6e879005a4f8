// The store contract's execute rule, on SQLite and PostgreSQL alike: a
// transfer's debit, postings, history and events written together, refused
// whole below the floor or for a duplicate id, and exact under races.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import postgres from 'postgres';
import { merchantAccount, OPERATOR_FUNDING_ACCOUNT } from '../../src/domain/ledger.ts';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { createAccount, getAccount, post } from '../../src/store/ledger.ts';
import { type ExecuteWrite, recordExecute } from '../../src/store/transfers/execute-rule.ts';
import { createStore, STORE_KINDS, TEST_DATABASE_URL, type TestStore } from '../helpers/stores.ts';

const NOW_MS = Date.UTC(2026, 0, 1);

for (const kind of STORE_KINDS) {
  describe(`store contract: execute write (${kind})`, () => {
    let store: TestStore;
    before(async () => {
      store = await createStore(kind);
    });
    after(async () => {
      await store.dispose();
    });

    describe('execute write', () => {
      const MERCHANT = 'm_exec';
      const write = (id: string, amountCents: number): ExecuteWrite => ({
        transfer: {
          merchant_id: MERCHANT,
          id,
          sender_phone: '+14155550100',
          receiver_phone: '+254712345678',
          amount_cents: amountCents,
          service: '1001',
          receiver_country: 'KE',
          receiver_currency: 'KES',
          fx_rate: '129.5',
          received_minor: amountCents * 129,
          attributes_json: '[]',
          substate: 0,
          waiting_for: null,
          next_run_at_ms: NOW_MS,
          invitation_expires_at_ms: null,
          gateway_charge_pk: null,
          created_at_ms: NOW_MS,
          payout_connector: 'sandbox',
        },
        posting: {
          kind: 'transfer.execute',
          debitAccountId: merchantAccount(MERCHANT, 'available'),
          creditAccountId: merchantAccount(MERCHANT, 'in_flight'),
          amountCents,
          merchantId: MERCHANT,
          nowMs: NOW_MS,
        },
        note: 'created',
        events: [
          { type: 'transfer.created', dataJson: JSON.stringify({ id }) },
          { type: 'transfer.waiting', dataJson: JSON.stringify({ id }) },
        ],
      });
      /** Like execute: a refusal fails the operation, so nothing it wrote survives. */
      const execute = (id: string, amountCents: number) =>
        store.db.write(async (tx) => {
          const outcome = await recordExecute(tx, write(id, amountCents));
          if (outcome.kind !== 'recorded') throw new Error(outcome.kind);
          return outcome.pk;
        });
      const balances = () =>
        store.db.read(async (tx) => [
          (await getAccount(tx, merchantAccount(MERCHANT, 'available')))?.balance_cents,
          (await getAccount(tx, merchantAccount(MERCHANT, 'in_flight')))?.balance_cents,
        ]);
      const counts = () =>
        store.db.read((tx) =>
          tx.get<{ transfers: number; postings: number; history: number; events: number }>(
            `SELECT (SELECT COUNT(*) FROM transfers WHERE merchant_id = ?) AS transfers,
               (SELECT COUNT(*) FROM postings WHERE merchant_id = ?) AS postings,
               (SELECT COUNT(*) FROM transfer_events e JOIN transfers t ON t.pk = e.transfer_pk WHERE t.merchant_id = ?) AS history,
               (SELECT COUNT(*) FROM events WHERE merchant_id = ?) AS events`,
            [MERCHANT, MERCHANT, MERCHANT, MERCHANT],
          ),
        );

      before(async () => {
        await store.db.write(async (tx) => {
          // The operator's funding account pays the merchant's starting balance.
          await createAccount(tx, { id: OPERATOR_FUNDING_ACCOUNT, merchantId: null, kind: 'operator_funding', floorCents: null, nowMs: NOW_MS });
          await tx.run("INSERT INTO merchants (id, name, created_at_ms) VALUES (?, 'Exec', ?)", [MERCHANT, NOW_MS]);
          await createAccount(tx, { id: merchantAccount(MERCHANT, 'available'), merchantId: MERCHANT, kind: 'available', floorCents: 0, nowMs: NOW_MS });
          await createAccount(tx, { id: merchantAccount(MERCHANT, 'in_flight'), merchantId: MERCHANT, kind: 'in_flight', floorCents: null, nowMs: NOW_MS });
          await post(tx, {
            kind: 'merchant.fund',
            debitAccountId: OPERATOR_FUNDING_ACCOUNT,
            creditAccountId: merchantAccount(MERCHANT, 'available'),
            amountCents: 1_000,
            merchantId: MERCHANT,
            refId: 'fund_exec',
            nowMs: NOW_MS,
          });
        });
      });

      it('records executes up to the floor, refuses duplicates, and leaves nothing of a refusal', async () => {
        // 1,000 of room: 10 of the 12 distinct ids fit; 'e0' is sent three times (one batch).
        const ids = [...Array.from({ length: 12 }, (_, i) => `e${i}`), 'e0', 'e0'];
        const outcomes = await Promise.allSettled(ids.map((id) => execute(id, 100)));
        const refusals = outcomes.map((o) => (o.status === 'fulfilled' ? 'recorded' : String((o.reason as Error).message)));
        assert.equal(refusals.filter((r) => r === 'recorded').length, 10);
        assert.equal(refusals.filter((r) => r === 'below_floor').length, 2);
        assert.equal(refusals.filter((r) => r === 'duplicate').length, 2);
        assert.deepEqual(await balances(), [0, 1_000]);
        assert.deepEqual(await counts(), { transfers: 10, postings: 11, history: 10, events: 20 });
        const pk = await store.db.read((tx) => tx.get<{ pk: number }>('SELECT pk FROM transfers WHERE merchant_id = ? AND id = ?', [MERCHANT, 'e1']));
        const posting = await store.db.read((tx) =>
          tx.get<{ ref_type: string; ref_id: string }>("SELECT ref_type, ref_id FROM postings WHERE kind = 'transfer.execute' AND ref_id = ?", [
            String(pk?.pk),
          ]),
        );
        assert.deepEqual({ ...posting }, { ref_type: 'transfer', ref_id: String(pk?.pk) });
        const events = await store.db.read((tx) =>
          tx.all<{ type: string }>('SELECT type FROM events WHERE merchant_id = ? AND data_json = ? ORDER BY pk', [MERCHANT, JSON.stringify({ id: 'e1' })]),
        );
        assert.deepEqual(
          events.map((e) => e.type),
          ['transfer.created', 'transfer.waiting'],
        );
        assert.deepEqual((await verifyLedger(store.db)).problems, []);
      });

      if (kind === 'postgres') {
        it('rolls back the debit when the id is taken by a commit it waited for', async () => {
          await store.db.write((tx) =>
            post(tx, {
              kind: 'merchant.fund',
              debitAccountId: OPERATOR_FUNDING_ACCOUNT,
              creditAccountId: merchantAccount(MERCHANT, 'available'),
              amountCents: 100,
              merchantId: MERCHANT,
              refId: 'fund_race',
              nowMs: NOW_MS,
            }),
          );
          const before = await balances();
          const schema = /search_path%3D([a-z0-9_]+)/.exec(store.env.DATABASE_URL!)![1]!;
          const other = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => undefined, connection: { search_path: schema } });
          try {
            let racing: Promise<number> | undefined;
            await other.begin(async (sql) => {
              // Holds the balance row, then makes the id: the execute's debit waits for this commit, made before its statement began.
              await sql.unsafe('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [merchantAccount(MERCHANT, 'available')]);
              await sql.unsafe(
                `INSERT INTO transfers (merchant_id, id, sender_phone, receiver_phone, amount_cents, service, receiver_country, receiver_currency, fx_rate, received_minor, attributes_json, state, substate, created_at_ms, updated_at_ms)
                 VALUES ($1, 'race', '+1', '+2', 100, '1001', 'KE', 'KES', '1', 1, '[]', 0, 0, 0, 0)`,
                [MERCHANT],
              );
              racing = execute('race', 100);
              racing.catch(() => undefined);
              await new Promise((resolve) => setTimeout(resolve, 200));
            });
            await assert.rejects(racing!, /duplicate/);
          } finally {
            await other.end();
          }
          assert.deepEqual(await balances(), before);
          await store.db.write((tx) => tx.run("DELETE FROM transfers WHERE merchant_id = ? AND id = 'race'", [MERCHANT]));
          assert.deepEqual((await verifyLedger(store.db)).problems, []);
        });
      }
    });
  });
}
