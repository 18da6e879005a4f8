// Execute planned on what the process last saw (flows/transfers/execute-hints.ts):
// on PostgreSQL an execute may be written without reading the merchant's
// rule and the id's quote first, the statement checking both. What another
// process changed meanwhile (a quote made for the id, the merchant's
// payouts-must-link rule turned on) must still decide the transfer, exactly
// as when the store was read first; on SQLite (which always reads, inside
// the write) the same answers hold. And the hints stay bounded.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { QUOTE_LIFETIME_MS } from '../../src/domain/transfer-states.ts';
import { ExecuteHints } from '../../src/store/transfers/execute-hints.ts';
import { setPayoutsMustLink } from '../../src/store/merchants.ts';
import { saveQuote } from '../../src/store/transfers.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { assertLedgerOk, caller, transferBody } from '../helpers/transfers.ts';

describe('execute hints', () => {
  it('forget the longest-unused merchant and the oldest quoted id past their bounds, and quotes once expired', () => {
    const hints = new ExecuteHints();
    for (let n = 0; n < 10_000; n++) hints.rememberPayoutsMustLink(`m${n}`, n % 2);
    assert.equal(hints.payoutsMustLink('m0'), 0, 'm0 is used again, so m1 is now the longest unused');
    hints.rememberPayoutsMustLink('m10000', 1);
    assert.equal(hints.size.merchants, 10_000);
    assert.equal(hints.payoutsMustLink('m1'), undefined);
    assert.equal(hints.payoutsMustLink('m0'), 0);
    assert.equal(hints.payoutsMustLink('m10000'), 1);

    for (let n = 0; n < 100_001; n++) hints.noteQuote('m', `t${n}`, 1_000);
    assert.equal(hints.size.quotedIds, 100_000);
    assert.equal(hints.mayHaveQuote('m', 't0', 1_000), false, 'the oldest is forgotten');
    assert.equal(hints.mayHaveQuote('m', 't1', 1_000 + QUOTE_LIFETIME_MS), true, 'a quote is honoured up to its expiry');
    assert.equal(hints.mayHaveQuote('m', 't1', 1_001 + QUOTE_LIFETIME_MS), false, 'and not after');
    assert.equal(hints.size.quotedIds, 99_999, 'an expired entry is dropped when looked at');
  });
});

for (const kind of STORE_KINDS) {
  describe(`execute after another process changed what it depends on (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(async () => {
      await t.close();
    });

    const transferRow = (merchantId: string, id: string) =>
      t.service.db.read((tx) =>
        tx.get<{ fx_rate: string; waiting_for: string | null; substate: number }>(
          'SELECT fx_rate, waiting_for, substate FROM transfers WHERE merchant_id = ? AND id = ?',
          [merchantId, id],
        ),
      );

    it("honours a quote this process did not make (the id's quote, written straight to the store)", async () => {
      const merchant = await t.newMerchant({ fundCents: 100_000 });
      const api = caller(t.app, merchant.transfer_api_key);
      // A first execute lets the process see the merchant (its rule), so the next may skip the read.
      const first = transferBody();
      assert.equal((await api.execute(first)).status, 200);
      const sandboxRate = (await transferRow(merchant.merchant_id, first.id))!.fx_rate;

      const body = transferBody();
      const quotedRate = sandboxRate === '100.5' ? '101.25' : '100.5';
      await t.service.db.write((tx) =>
        saveQuote(tx, {
          merchant_id: merchant.merchant_id,
          transfer_id: body.id,
          service: body.service,
          amount_cents: 1_000,
          fx_rate: quotedRate,
          expires_at_ms: t.clock.nowMs() + QUOTE_LIFETIME_MS,
        }),
      );
      assert.equal((await api.execute(body)).status, 200);
      assert.equal((await transferRow(merchant.merchant_id, body.id))!.fx_rate, quotedRate, 'the quote decided the rate');
      await assertLedgerOk(t.service);
    });

    it('honours a quote this process made (POST /api/checkTransfer)', async () => {
      const merchant = await t.newMerchant({ fundCents: 100_000 });
      const api = caller(t.app, merchant.transfer_api_key);
      assert.equal((await api.execute(transferBody())).status, 200);
      const body = transferBody();
      const checked = await api.check(body);
      assert.equal(checked.status, 200);
      // The quote keeps the rate it was made with: change it in the store and the execute must show the store's.
      await t.service.db.write((tx) =>
        tx.run("UPDATE quotes SET fx_rate = '99.75' WHERE merchant_id = ? AND transfer_id = ?", [merchant.merchant_id, body.id]),
      );
      assert.equal((await api.execute(body)).status, 200);
      assert.equal((await transferRow(merchant.merchant_id, body.id))!.fx_rate, '99.75');
    });

    it("obeys the merchant's payouts-must-link rule turned on after the process last saw it", async () => {
      const merchant = await t.newMerchant({ fundCents: 100_000 });
      const api = caller(t.app, merchant.transfer_api_key);
      const before = transferBody();
      assert.equal((await api.execute(before)).status, 200);
      assert.equal((await transferRow(merchant.merchant_id, before.id))!.waiting_for, null);

      assert.equal(await t.service.db.write((tx) => setPayoutsMustLink(tx, merchant.merchant_id, true)), 1);
      const body = transferBody();
      const reply = await api.execute(body);
      assert.equal(reply.status, 200);
      assert.equal((await transferRow(merchant.merchant_id, body.id))!.waiting_for, 'reconciliation', 'the rule as the store has it decided');

      // And the process sees the rule now: the next execute waits too.
      const next = transferBody();
      assert.equal((await api.execute(next)).status, 200);
      assert.equal((await transferRow(merchant.merchant_id, next.id))!.waiting_for, 'reconciliation');
      await assertLedgerOk(t.service);
    });
  });
}
