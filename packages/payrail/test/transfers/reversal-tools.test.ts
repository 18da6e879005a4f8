// The operator's tools for reversals of completed payouts: the `payrail
// transfers reversals` and `payrail transfers reversal report|confirm|reject`
// commands (a real child process on the test's store) and the panel page
// /dashboard/operator/reversals (operators only, CSRF-checked posts). Both
// stores; `payrail ledger verify` passes after a confirmed reversal.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CreatedMerchant } from '../../src/flows/merchants/merchants.ts';
import { createUser } from '../../src/flows/panel/users.ts';
import { reportReversalByOperator } from '../../src/flows/transfers/reversals.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { runCli, runCliJson } from '../helpers/cli.ts';
import { PanelClient, textOf } from '../helpers/panel.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { assertLedgerOk, balances, caller, created, transferBody } from '../helpers/transfers.ts';

const PASSWORD = 'correct horse battery staple';

for (const kind of STORE_KINDS) {
  describe(`reversal tools: CLI and panel (${kind})`, () => {
    let t: TestApp;
    let merchant: CreatedMerchant;
    let api: ReturnType<typeof caller>;

    before(async () => {
      t = await createTestApp(kind);
      merchant = await t.newMerchant({ fundCents: 1_000_000 });
      api = caller(t.app, merchant.transfer_api_key);
    });
    after(() => t.close());

    const paidOut = async (amount: string) => {
      const body = transferBody({ amount });
      assert.deepEqual(await api.execute(body), { status: 200, body: created(body.id) });
      await t.worker.drain();
      assert.equal(((await api.status(body.id)).body as { status: { result: { state: number } } }).status.result.state, 60);
      return body.id;
    };
    const attributeOf = async (id: string) => ((await api.status(id)).body as { status: { result: { attribute: unknown[] } } }).status.result.attribute;

    it('payrail transfers reversal report, reversals, confirm (once) and reject; ledger verify passes', async () => {
      const confirmed = await paidOut('30.00');
      const rejected = await paidOut('11.00');
      const start = await balances(t.service, merchant.merchant_id);
      const env = t.store.env;

      const report = await runCli(
        ['transfers', 'reversal', 'report', '--merchant', merchant.merchant_id, '--id', confirmed, '--reason', 'wallet operator reversed it', '--code', 'R9'],
        env,
      );
      assert.equal(report.code, 0, report.stderr);
      assert.match(
        report.stdout,
        new RegExp(
          `^${merchant.merchant_id}  transfer ${confirmed}  30\\.00 USD  \\[reported\\]  reported \\S+ by cli:\\S*: R9 wallet operator reversed it\\n$`,
        ),
      );
      const second = await runCli(
        ['transfer', 'reversal', 'report', '--merchant', merchant.merchant_id, '--transfer', rejected, '--reason', 'statement shows it reversed'],
        env,
      );
      assert.equal(second.code, 0, second.stderr);
      assert.deepEqual(await attributeOf(confirmed), [{ name: 'reversed', value: 'reported' }]);

      const listed = await runCliJson<{ reversals: Array<{ transfer_id: string; state: string; source: string; amount_cents: number }> }>(
        ['transfers', 'reversals', '--state', 'reported'],
        env,
      );
      assert.deepEqual(
        listed.reversals.map((r) => [r.transfer_id, r.state, r.source, r.amount_cents]).sort(),
        [
          [confirmed, 'reported', 'operator', 3000],
          [rejected, 'reported', 'operator', 1100],
        ].sort(),
      );
      const badState = await runCli(['transfers', 'reversals', '--state', 'open'], env);
      assert.equal(badState.code, 1);
      assert.match(badState.stderr, /--state must be one of reported, confirmed, rejected/);

      const confirm = await runCli(['transfers', 'reversal', 'confirm', '--merchant', merchant.merchant_id, '--transfer', confirmed], env);
      assert.equal(confirm.code, 0, confirm.stderr);
      assert.match(confirm.stdout, /\[confirmed\].* {2}confirmed \S+ by cli:/);
      const again = await runCli(['transfers', 'reversal', 'confirm', '--merchant', merchant.merchant_id, '--transfer', confirmed], env);
      assert.equal(again.code, 1);
      assert.match(again.stderr, new RegExp(`the reversal of transfer ${confirmed} is already confirmed`));

      const noReason = await runCli(['transfers', 'reversal', 'reject', '--merchant', merchant.merchant_id, '--transfer', rejected], env);
      assert.notEqual(noReason.code, 0);
      const reject = await runCli(['transfers', 'reversal', 'reject', '--merchant', merchant.merchant_id, '--transfer', rejected, '--reason', 'not ours'], env);
      assert.equal(reject.code, 0, reject.stderr);
      assert.match(reject.stdout, /\[rejected\].*: not ours$/m);

      assert.deepEqual(await balances(t.service, merchant.merchant_id), { ...start, available: start.available + 3000, paid_out: start.paid_out - 3000 });
      assert.deepEqual(await attributeOf(confirmed), [{ name: 'reversed', value: 'confirmed' }]);
      assert.deepEqual(await attributeOf(rejected), []);
      const verify = await runCli(['ledger', 'verify'], env);
      assert.equal(verify.code, 0, verify.stdout + verify.stderr);
      assert.match(verify.stdout, /^ledger OK/);
      const all = await runCliJson<{ reversals: Array<{ transfer_id: string; state: string }> }>(['transfers', 'reversals'], env);
      assert.deepEqual(
        all.reversals
          .filter((r) => r.transfer_id === confirmed || r.transfer_id === rejected)
          .map((r) => [r.transfer_id, r.state])
          .sort(),
        [
          [confirmed, 'confirmed'],
          [rejected, 'rejected'],
        ].sort(),
      );
    });

    it('the operator panel lists reported reversals and confirms or rejects one with the CSRF token; merchant users may not', async () => {
      const toConfirm = await paidOut('21.00');
      const toReject = await paidOut('8.00');
      for (const id of [toConfirm, toReject]) {
        await reportReversalByOperator(
          t.service,
          { merchantId: merchant.merchant_id, transferId: id, reason: 'network reversed it' },
          {
            kind: 'cli',
            id: 'ops',
            label: null,
            address: null,
          },
        );
      }
      const start = await balances(t.service, merchant.merchant_id);
      const email = `ops-${kind}@example.com`;
      await createUser({ db: t.service.db, clock: t.clock }, { email, role: 'operator', password: PASSWORD });
      const panel = new PanelClient(t.app);
      assert.equal((await panel.signIn(email, PASSWORD)).status, 303);
      const page = await panel.get('/dashboard/operator/reversals');
      assert.equal(page.status, 200);
      assert.match(page.body, /href="\/dashboard\/operator\/reversals"[^>]*>Payout reversals</);
      for (const id of [toConfirm, toReject]) assert.match(page.body, new RegExp(`name="transfer" value="${id}"`));
      assert.match(page.body, /action="\/dashboard\/operator\/reversals\/confirm"/);
      assert.match(page.body, new RegExp(`href="/dashboard/operator/merchants/${merchant.merchant_id}/transfers/${toConfirm}"`));
      const operatorDetail = await panel.get(`/dashboard/operator/merchants/${merchant.merchant_id}/transfers/${toConfirm}`);
      assert.match(operatorDetail.body, /Reported by the payout network; awaiting the operator/);

      const fields = { merchant: merchant.merchant_id, transfer: toConfirm };
      const forged = await panel.post('/dashboard/operator/reversals/confirm', fields, { csrf: false });
      assert.equal(forged.status, 403);
      assert.deepEqual(await balances(t.service, merchant.merchant_id), start);

      const done = await panel.post('/dashboard/operator/reversals/confirm', fields);
      assert.equal(done.location, '/dashboard/operator/reversals?notice=reversal_confirmed');
      const twice = await panel.post('/dashboard/operator/reversals/confirm', fields);
      assert.equal(twice.status, 422);
      assert.match(textOf(twice.body, 'notice-error') ?? '', new RegExp(`the reversal of transfer ${toConfirm} is already confirmed`));

      const blank = await panel.post('/dashboard/operator/reversals/reject', { merchant: merchant.merchant_id, transfer: toReject, reason: '' });
      assert.equal(blank.status, 400);
      const rejected = await panel.post('/dashboard/operator/reversals/reject', {
        merchant: merchant.merchant_id,
        transfer: toReject,
        reason: 'duplicate report',
      });
      assert.equal(rejected.location, '/dashboard/operator/reversals?notice=reversal_rejected');

      assert.deepEqual(await balances(t.service, merchant.merchant_id), { ...start, available: start.available + 2100, paid_out: start.paid_out - 2100 });
      const confirmedPage = await panel.get('/dashboard/operator/reversals?state=confirmed');
      assert.match(confirmedPage.body, new RegExp(`by user:${email.replace('.', '\\.')}`));
      const rejectedPage = await panel.get('/dashboard/operator/reversals?state=rejected');
      assert.match(rejectedPage.body, /duplicate report/);
      await assertLedgerOk(t.service);

      // A merchant user is turned away from the page and its actions.
      const merchantEmail = `merchant-${kind}@example.com`;
      await createUser({ db: t.service.db, clock: t.clock }, { email: merchantEmail, role: 'merchant', merchantId: merchant.merchant_id, password: PASSWORD });
      const other = new PanelClient(t.app);
      assert.equal((await other.signIn(merchantEmail, PASSWORD)).status, 303);
      assert.equal((await other.get('/dashboard/operator/reversals')).status, 403);
      // The merchant's own transfer page shows the reversal beside the final state.
      const detail = await other.get(`/dashboard/transfers/${toConfirm}`);
      assert.equal(detail.status, 200);
      assert.match(detail.body, /Confirmed: the amount went back to the available balance/);
      assert.match(detail.body, /state 60, substate 0, final/);
      assert.equal((await other.post('/dashboard/operator/reversals/confirm', fields)).status, 403);
    });
  });
}
