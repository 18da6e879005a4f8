// Reversals of completed payouts (behaviour.md section 18): reported (here
// by an operator; by the network in test/providers/payout-callbacks.test.ts),
// then confirmed (the merchant is credited paid_out -> available, once, with
// the transfer.reversed event and an audit row; ledger verify passes) or
// rejected (no money moves). The transfer stays final at 60 and its status
// shows the `reversed` attribute. Both stores, sandbox payout network.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AuditActor } from '../../src/domain/audit.ts';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { confirmReversal, listTransferReversals, rejectReversal, reportReversalByOperator } from '../../src/flows/transfers/reversals.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { assertLedgerOk, balances, caller, created, statusBody, transferBody, transferPk } from '../helpers/transfers.ts';

const OPERATOR: AuditActor = { kind: 'cli', id: 'ops', label: null, address: null };

for (const kind of STORE_KINDS) {
  describe(`reversals of completed payouts (${kind})`, () => {
    let t: TestApp;
    let merchant: CreatedMerchant;
    let api: ReturnType<typeof caller>;

    before(async () => {
      t = await createTestApp(kind);
      merchant = await t.newMerchant({ fundCents: 1_000_000 });
      api = caller(t.app, merchant.transfer_api_key);
    });
    after(() => t.close());

    /** A transfer paid out (60) by the sandbox network. */
    const paidOut = async (amount: string) => {
      const body = transferBody({ amount });
      assert.deepEqual(await api.execute(body), { status: 200, body: created(body.id) });
      await t.worker.drain();
      const result = ((await api.status(body.id)).body as { status: { result: { state: number; trans: string; sum_prov: string } } }).status.result;
      assert.equal(result.state, 60);
      return { id: body.id, trans: result.trans, sum_prov: result.sum_prov };
    };
    const target = (id: string) => ({ merchantId: merchant.merchant_id, transferId: id });
    const attributeOf = async (id: string) => ((await api.status(id)).body as { status: { result: { attribute: unknown[] } } }).status.result.attribute;
    const reversedEvents = async (id: string) =>
      (
        await t.service.db.read((tx) =>
          tx.all<{ data_json: string }>("SELECT data_json FROM events WHERE merchant_id = ? AND type = 'transfer.reversed' ORDER BY pk", [
            merchant.merchant_id,
          ]),
        )
      )
        .map((row) => JSON.parse(row.data_json) as { id: string; state: number; final: number; attribute: unknown[] })
        .filter((data) => data.id === id);
    const auditActions = async (id: string) =>
      (
        await t.service.db.read((tx) =>
          tx.all<{ action: string; outcome: string; actor_kind: string; actor_id: string | null }>(
            "SELECT action, outcome, actor_kind, actor_id FROM audit_events WHERE target = ? AND action LIKE 'transfer.reversal%' ORDER BY id",
            [id],
          ),
        )
      ).map((row) => `${row.action} ${row.outcome} ${row.actor_kind}:${row.actor_id ?? ''}`);

    it('a confirmed reversal credits the merchant once, keeps the transfer final and shows reversed=confirmed; a second confirm is refused', async () => {
      const tr = await paidOut('25.00');
      const start = await balances(t.service, merchant.merchant_id);

      const reported = await reportReversalByOperator(t.service, { ...target(tr.id), reason: 'Wallet operator reversed the credit', code: 'R01' }, OPERATOR);
      assert.deepEqual(
        [reported.state, reported.source, reported.amount_cents, reported.error_code, reported.reported_by],
        ['reported', 'operator', 2500, 'R01', 'cli:ops'],
      );
      assert.deepEqual(await attributeOf(tr.id), [{ name: 'reversed', value: 'reported' }]);
      assert.deepEqual(await balances(t.service, merchant.merchant_id), start, 'a report moves no money');
      assert.deepEqual(
        (await listTransferReversals(t.service, { state: 'reported', limit: 100 })).map((r) => r.transfer_id),
        [tr.id],
      );
      await assert.rejects(reportReversalByOperator(t.service, { ...target(tr.id), reason: 'again' }, OPERATOR), {
        message: `transfer ${tr.id} already has a reversal (reported)`,
      });

      const confirmed = await confirmReversal(t.service, { ...target(tr.id), note: 'statement of 2026-11-27' }, OPERATOR);
      assert.deepEqual([confirmed.state, confirmed.decided_by, confirmed.note], ['confirmed', 'cli:ops', 'statement of 2026-11-27']);
      const credited = { ...start, available: start.available + 2500, paid_out: start.paid_out - 2500 };
      assert.deepEqual(await balances(t.service, merchant.merchant_id), credited);
      assert.deepEqual(await api.status(tr.id), {
        status: 200,
        body: statusBody(tr.id, {
          state: 60,
          substate: 0,
          final: 1,
          attribute: [{ name: 'reversed', value: 'confirmed' }],
          serverTimeMs: t.clock.nowMs(),
          trans: tr.trans,
          sum_prov: tr.sum_prov,
        }),
      });
      const events = await reversedEvents(tr.id);
      assert.equal(events.length, 1);
      assert.deepEqual([events[0]!.state, events[0]!.final, events[0]!.attribute], [60, 1, [{ name: 'reversed', value: 'confirmed' }]]);
      await assertLedgerOk(t.service);

      await assert.rejects(confirmReversal(t.service, target(tr.id), OPERATOR), { message: `the reversal of transfer ${tr.id} is already confirmed` });
      await assert.rejects(rejectReversal(t.service, { ...target(tr.id), reason: 'too late' }, OPERATOR), {
        message: `the reversal of transfer ${tr.id} is already confirmed`,
      });
      assert.deepEqual(await balances(t.service, merchant.merchant_id), credited);
      assert.equal((await reversedEvents(tr.id)).length, 1);
      assert.deepEqual(await auditActions(tr.id), [
        'transfer.reversal_report success cli:ops',
        'transfer.reversal_report failure cli:ops',
        'transfer.reversal_confirm success cli:ops',
        'transfer.reversal_confirm failure cli:ops',
        'transfer.reversal_reject failure cli:ops',
      ]);
      await assertLedgerOk(t.service);
    });

    it('concurrent confirms credit once', async () => {
      const tr = await paidOut('40.00');
      await reportReversalByOperator(t.service, { ...target(tr.id), reason: 'reversed by the network' }, OPERATOR);
      const start = await balances(t.service, merchant.merchant_id);
      const results = await Promise.allSettled(Array.from({ length: 4 }, () => confirmReversal(t.service, target(tr.id), OPERATOR)));
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
      for (const r of results) {
        if (r.status === 'rejected') assert.match(String((r.reason as Error).message), /is already confirmed/);
      }
      assert.deepEqual(await balances(t.service, merchant.merchant_id), { ...start, available: start.available + 4000, paid_out: start.paid_out - 4000 });
      assert.equal((await reversedEvents(tr.id)).length, 1);
      const pk = await transferPk(t.service, merchant.merchant_id, tr.id);
      const postings = await t.service.db.read((tx) =>
        tx.get<{ n: number }>("SELECT COUNT(*) AS n FROM postings WHERE ref_type = 'transfer' AND ref_id = ? AND kind = 'transfer.reverse'", [String(pk)]),
      );
      assert.equal(Number(postings!.n), 1);
      await assertLedgerOk(t.service);
    });

    it('a rejected reversal moves no money and the attribute goes; an operator may report it again', async () => {
      const tr = await paidOut('15.00');
      const start = await balances(t.service, merchant.merchant_id);
      await reportReversalByOperator(t.service, { ...target(tr.id), reason: 'network says reversed' }, OPERATOR);
      await assert.rejects(rejectReversal(t.service, { ...target(tr.id), reason: '  ' }, OPERATOR), { message: 'a reason for rejecting it is required' });
      const rejected = await rejectReversal(t.service, { ...target(tr.id), reason: 'network withdrew it' }, OPERATOR);
      assert.deepEqual([rejected.state, rejected.note], ['rejected', 'network withdrew it']);
      assert.deepEqual(await attributeOf(tr.id), []);
      assert.deepEqual(await balances(t.service, merchant.merchant_id), start);
      assert.equal((await reversedEvents(tr.id)).length, 0);
      await assert.rejects(confirmReversal(t.service, target(tr.id), OPERATOR), { message: `the reversal of transfer ${tr.id} is already rejected` });
      await assertLedgerOk(t.service);

      const again = await reportReversalByOperator(t.service, { ...target(tr.id), reason: 'network confirmed it after all' }, OPERATOR);
      assert.deepEqual([again.state, again.decided_by, again.error_text], ['reported', null, 'network confirmed it after all']);
      assert.deepEqual(await attributeOf(tr.id), [{ name: 'reversed', value: 'reported' }]);
    });

    it('ledger verify finds a reversal posting whose transfer does not record the confirmation', async () => {
      const tr = await paidOut('3.00');
      await reportReversalByOperator(t.service, { ...target(tr.id), reason: 'reversed' }, OPERATOR);
      await confirmReversal(t.service, target(tr.id), OPERATOR);
      const pk = await transferPk(t.service, merchant.merchant_id, tr.id);
      const mark = (value: string | null) => t.service.db.write((tx) => tx.run('UPDATE transfers SET reversal = ? WHERE pk = ?', [value, pk]));
      await mark(null);
      const report = await verifyLedger(t.service.db);
      assert.equal(report.ok, false);
      assert.ok(report.problems.includes(`transfer ${pk} (state 60) has postings that do not match its state`), report.problems.join('; '));
      assert.ok(
        report.problems.some((p) => p.startsWith(`merchant ${merchant.merchant_id}: paid_out ledger`)),
        report.problems.join('; '),
      );
      await mark('confirmed');
      await assertLedgerOk(t.service);
    });

    it('only a completed payout can be reversed; an unknown transfer is not found', async () => {
      const body = transferBody({ amount: '5.00' });
      assert.deepEqual(await api.execute(body), { status: 200, body: created(body.id) });
      await assert.rejects(reportReversalByOperator(t.service, { ...target(body.id), reason: 'x' }, OPERATOR), {
        message: `transfer ${body.id} is not a completed payout (state 0); only a payout at 60 can be reversed`,
      });
      await assert.rejects(reportReversalByOperator(t.service, { ...target('999999999'), reason: 'x' }, OPERATOR), {
        message: `merchant ${merchant.merchant_id} has no transfer 999999999`,
      });
      await assert.rejects(confirmReversal(t.service, target(body.id), OPERATOR), { message: `transfer ${body.id} has no reported reversal` });
      await t.worker.drain();
      await assertLedgerOk(t.service);
    });
  });
}
