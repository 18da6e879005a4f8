// The worker's ACH sweep (flows/ach/lifecycle.ts) on both stores: a
// submission whose answer was lost sent again with the same reference after
// its deadline, and not past the network's resend window; a lost void asked
// again (voided, or back to pending when too late); a failing network backed
// off; an entry of another network left alone; Payrail's own settlement
// rule; a void the network reports; erasure of account numbers after their
// retention; and ledger verify catching tampered check postings.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cardCipherFor } from '../../src/crypto/card-key.ts';
import { settlesAtMs } from '../../src/domain/ach.ts';
import { ACH_RETRY_MIN_MS, ACH_STATUS_POLL_INTERVAL_MS, ACH_STUCK_RECHECK_MS, ACH_SUBMIT_MARGIN_MS } from '../../src/domain/ach-schedule.ts';
import { DAY_MS } from '../../src/domain/clock.ts';
import { ACH_ACCOUNT_RETENTION_MS, eraseExpiredAchAccounts } from '../../src/flows/ach/account-retention.ts';
import { type AchLifecycleDeps, achLifecycleDepsOf, sweepDueAchEntries } from '../../src/flows/ach/lifecycle.ts';
import { EVENT_VIEWS } from '../../src/flows/events/emit.ts';
import { verifyLedger } from '../../src/flows/operations/ledger-verify.ts';
import { ACH_NETWORK_TIMEOUT_MS, type AchNetwork } from '../../src/providers/ach-network.ts';
import { rescheduleAchEntry } from '../../src/store/ach/entries.ts';
import { beginAchVoid, holdAchCredit, originateAchEntry, returnAchEntry, settleAchEntry } from '../../src/store/ach/transitions.ts';
import { advanceAchClock } from '../../src/store/sandbox-ach-clocks.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { achBalances, createCheck, entryOf, eventCount } from '../helpers/checks.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

/** Monday 30 November 2026, 10:00 UTC. */
const MONDAY_10_UTC = Date.UTC(2026, 10, 30, 10, 0);
const AMOUNT = 5_000;
const SUBMIT_DEADLINE_MS = ACH_NETWORK_TIMEOUT_MS + ACH_SUBMIT_MARGIN_MS;

/** The sandbox network with some calls replaced. */
function networkLike(t: TestApp, overrides: Partial<AchNetwork>): AchNetwork {
  const sandbox = t.service.providers.achNetwork!;
  return {
    name: sandbox.name,
    returnWatchMs: sandbox.returnWatchMs,
    submit: (s) => sandbox.submit(s),
    voidEntry: (q) => sandbox.voidEntry(q),
    status: (q) => sandbox.status(q),
    ...overrides,
  };
}

function depsWith(t: TestApp, network: AchNetwork | null): AchLifecycleDeps {
  return { ...achLifecycleDepsOf(t.service), network };
}

/** Runs the sweep until it claims nothing. */
async function sweepAll(deps: AchLifecycleDeps): Promise<void> {
  for (let round = 0; round < 20 && (await sweepDueAchEntries(deps)) > 0; round++);
}

async function assertLedgerOk(t: TestApp): Promise<void> {
  const report = await verifyLedger(t.service.db);
  assert.deepEqual(report.problems, []);
}

for (const kind of STORE_KINDS) {
  describe(`ACH lifecycle sweep (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(async () => t.close());

    it('sends a submission whose answer was lost again after its deadline, with the same reference, and accepts it once', async () => {
      t.clock.set(MONDAY_10_UTC);
      const merchant = await t.newMerchant();
      const pk = await createCheck(t.service, merchant, { amountCents: AMOUNT, accountNumber: '11112222', submit: false });
      // The request held an Idempotency-Key, still in progress when it died.
      await t.service.db.write(async (tx) => {
        await tx.run("UPDATE charges SET idem_key = 'key-1' WHERE pk = ?", [pk]);
        await tx.run(
          "INSERT INTO idempotency_keys (source_id, idem_key, request_hash, status_code, response_json, created_at_ms) VALUES (?, 'key-1', 'h', 0, '', ?)",
          [merchant.source.id, t.clock.nowMs()],
        );
      });
      const references: string[] = [];
      const deps = depsWith(
        t,
        networkLike(t, {
          submit: (s) => {
            references.push(s.reference);
            assert.equal(s.account.accountNumber.reveal(), '11112222');
            return t.service.providers.achNetwork!.submit(s);
          },
        }),
      );
      // Due at the request's retry time (its call's deadline), but the request may still be recording the answer: it waits for the margin too.
      t.clock.advance(ACH_NETWORK_TIMEOUT_MS);
      assert.equal(await sweepDueAchEntries(deps), 1);
      assert.deepEqual(references, []);
      assert.equal((await entryOf(t.service, merchant, pk)).next_check_at_ms, MONDAY_10_UTC + SUBMIT_DEADLINE_MS);
      t.clock.set(MONDAY_10_UTC + SUBMIT_DEADLINE_MS);
      await sweepAll(deps);
      assert.equal(references.length, 1);
      const entry = await entryOf(t.service, merchant, pk);
      assert.equal(entry.state, 'pending');
      assert.match(entry.network_ref ?? '', /^achs_/);
      assert.equal(entry.next_check_at_ms, t.clock.nowMs() + ACH_STATUS_POLL_INTERVAL_MS);
      assert.equal(await eventCount(t.service, pk, 'charge.approved'), 1);
      // The key now replays the answer the request would have sent.
      const key = await t.service.db.read((tx) =>
        tx.get<{ status_code: number | string; response_json: string }>("SELECT status_code, response_json FROM idempotency_keys WHERE idem_key = 'key-1'"),
      );
      assert.equal(Number(key!.status_code), 200);
      assert.equal(
        (JSON.parse(key!.response_json) as { reference_number?: number; id?: number }).reference_number ??
          Number((JSON.parse(key!.response_json) as { id?: number }).id),
        pk,
      );
      assert.deepEqual(await achBalances(t.service, merchant.merchant_id), { available: 0, ach_pending: AMOUNT, ach_payins: -AMOUNT, ach_returns_due: 0 });
      await assertLedgerOk(t);
      // The account number is never in the log.
      assert.ok(!t.logLines.join('').includes('11112222'));
    });

    it('records a refusal of a submission sent again: declined, a held credit given back', async () => {
      t.clock.set(MONDAY_10_UTC);
      const merchant = await t.newMerchant({ fundCents: 10_000 });
      const debit = await createCheck(t.service, merchant, { amountCents: AMOUNT, accountNumber: '12121212', submit: false });
      const credit = await createCheck(t.service, merchant, { amountCents: 3_000, accountNumber: '13131313', direction: 'credit', submit: false });
      assert.deepEqual(await achBalances(t.service, merchant.merchant_id), { available: 7_000, ach_pending: 0, ach_payins: 3_000, ach_returns_due: 0 });
      const deps = depsWith(t, networkLike(t, { submit: async () => ({ outcome: 'declined', networkRef: '', declineMessage: 'Account frozen' }) }));
      t.clock.advance(SUBMIT_DEADLINE_MS);
      await sweepAll(deps);
      for (const pk of [debit, credit]) {
        const entry = await entryOf(t.service, merchant, pk);
        assert.deepEqual([entry.state, entry.decline_message, entry.next_check_at_ms], ['declined', 'Account frozen', null]);
        const row = await t.service.db.read((tx) =>
          tx.get<{ status: string; error_code: string }>('SELECT status, error_code FROM charges WHERE pk = ?', [pk]),
        );
        assert.deepEqual({ ...row }, { status: 'declined', error_code: 'check_declined' });
      }
      assert.deepEqual(await achBalances(t.service, merchant.merchant_id), { available: 10_000, ach_pending: 0, ach_payins: 0, ach_returns_due: 0 });
      await assertLedgerOk(t);
    });

    it('records a failure of a submission sent again with the code and text the request records', async () => {
      t.clock.set(MONDAY_10_UTC);
      const merchant = await t.newMerchant();
      const pk = await createCheck(t.service, merchant, { amountCents: AMOUNT, accountNumber: '14141414', submit: false });
      const deps = depsWith(t, networkLike(t, { submit: async () => ({ outcome: 'failed', networkRef: '', declineMessage: null }) }));
      t.clock.advance(SUBMIT_DEADLINE_MS);
      await sweepAll(deps);
      const row = await t.service.db.read((tx) =>
        tx.get<{ status: string; error_code: string; error_message: string }>('SELECT status, error_code, error_message FROM charges WHERE pk = ?', [pk]),
      );
      assert.deepEqual({ ...row }, { status: 'failed', error_code: 'ach_network_error', error_message: 'the ACH network could not process the entry' });
      await assertLedgerOk(t);
    });

    it('does not send a submission again past the network resend window: logged, looked at again a day later', async () => {
      t.clock.set(MONDAY_10_UTC);
      const merchant = await t.newMerchant();
      const pk = await createCheck(t.service, merchant, { amountCents: AMOUNT, accountNumber: '22223333', submit: false });
      let sent = 0;
      const deps = depsWith(
        t,
        networkLike(t, {
          resendWindowMs: 60_000,
          submit: (s) => {
            sent += 1;
            return t.service.providers.achNetwork!.submit(s);
          },
        }),
      );
      t.clock.advance(SUBMIT_DEADLINE_MS);
      const logged = t.logLines.length;
      await sweepAll(deps);
      assert.equal(sent, 0);
      const entry = await entryOf(t.service, merchant, pk);
      assert.equal(entry.state, 'submitting');
      assert.equal(entry.next_check_at_ms, t.clock.nowMs() + ACH_STUCK_RECHECK_MS);
      assert.match(t.logLines.slice(logged).join(''), /past the network's resend window/);
      await assertLedgerOk(t);
    });

    it('backs off a network that does not answer, doubling the wait', async () => {
      t.clock.set(MONDAY_10_UTC);
      const merchant = await t.newMerchant();
      const pk = await createCheck(t.service, merchant, { amountCents: AMOUNT, accountNumber: '33334444' });
      const deps = depsWith(
        t,
        networkLike(t, {
          status: async () => {
            throw new Error('connection reset');
          },
        }),
      );
      t.clock.advance(ACH_STATUS_POLL_INTERVAL_MS);
      await sweepDueAchEntries(deps);
      // The last wait was the poll interval: doubled, then held at the most.
      const first = (await entryOf(t.service, merchant, pk)).next_check_at_ms!;
      assert.equal(first, t.clock.nowMs() + ACH_STATUS_POLL_INTERVAL_MS);
      assert.equal((await entryOf(t.service, merchant, pk)).state, 'pending');
      // A submission failing right after its deadline waits the least first.
      const fresh = await createCheck(t.service, merchant, { amountCents: AMOUNT, accountNumber: '33335555', submit: false });
      const failing = depsWith(
        t,
        networkLike(t, {
          submit: async () => {
            throw new Error('timeout');
          },
        }),
      );
      t.clock.advance(ACH_NETWORK_TIMEOUT_MS);
      await sweepDueAchEntries(failing);
      t.clock.advance(ACH_SUBMIT_MARGIN_MS);
      await sweepDueAchEntries(failing);
      // It last waited the margin: the least wait first.
      assert.equal((await entryOf(t.service, merchant, fresh)).next_check_at_ms, t.clock.nowMs() + ACH_RETRY_MIN_MS);
      t.clock.advance(ACH_RETRY_MIN_MS);
      await sweepDueAchEntries(failing);
      assert.equal((await entryOf(t.service, merchant, fresh)).next_check_at_ms, t.clock.nowMs() + 2 * ACH_RETRY_MIN_MS);
      assert.equal((await entryOf(t.service, merchant, fresh)).state, 'submitting');
      await assertLedgerOk(t);
    });

    it('leaves an entry of a network that is not configured as it is, with an error for the operator', async () => {
      t.clock.set(MONDAY_10_UTC);
      const merchant = await t.newMerchant();
      const pk = await createCheck(t.service, merchant, { amountCents: AMOUNT, accountNumber: '44445555' });
      const deps = depsWith(t, networkLike(t, { name: 'elsewhere' }));
      t.clock.advance(ACH_STATUS_POLL_INTERVAL_MS);
      const logged = t.logLines.length;
      await sweepDueAchEntries(deps);
      const entry = await entryOf(t.service, merchant, pk);
      assert.equal(entry.state, 'pending');
      assert.equal(entry.next_check_at_ms, t.clock.nowMs() + ACH_STUCK_RECHECK_MS);
      assert.match(t.logLines.slice(logged).join(''), /network that is not configured/);
      // No network at all (checks switched off): the same.
      await sweepDueAchEntries(depsWith(t, null));
      assert.equal((await entryOf(t.service, merchant, pk)).state, 'pending');
    });

    it('asks a lost void again: voided when first asked before origination, back to pending (then originated) when first asked after', async () => {
      t.clock.set(MONDAY_10_UTC);
      const merchant = await t.newMerchant();
      const deps = achLifecycleDepsOf(t.service);
      const early = await createCheck(t.service, merchant, { amountCents: AMOUNT, accountNumber: '55556666' });
      const late = await createCheck(t.service, merchant, { amountCents: 700, accountNumber: '55557777' });
      const begin = async (pk: number, voidAskedAchMs?: number) => {
        const begun = await beginAchVoid(t.service.db, {
          chargePk: pk,
          merchantId: merchant.merchant_id,
          nowMs: t.clock.nowMs(),
          views: EVENT_VIEWS,
          nextCheckAtMs: t.clock.nowMs() + 30_000,
          ...(voidAskedAchMs === undefined ? {} : { voidAskedAchMs }),
        });
        assert.equal(begun.kind, 'moved');
      };
      await begin(early);
      t.clock.advance(SUBMIT_DEADLINE_MS);
      await sweepAll(deps);
      assert.equal((await entryOf(t.service, merchant, early)).state, 'voided');
      assert.equal((await entryOf(t.service, merchant, early)).next_check_at_ms, null);
      assert.equal(await eventCount(t.service, early, 'charge.voided'), 1);
      assert.deepEqual(await achBalances(t.service, merchant.merchant_id), { available: 0, ach_pending: 700, ach_payins: -700, ach_returns_due: 0 });
      await assertLedgerOk(t);
      // The ACH clock passes the cut-off, then the void is first asked: too late.
      await advanceAchClock(t.service.db, { merchantId: merchant.merchant_id, byMs: DAY_MS, nowMs: t.clock.nowMs() });
      await begin(late, t.clock.nowMs() + DAY_MS);
      t.clock.advance(SUBMIT_DEADLINE_MS);
      await sweepAll(deps);
      const entry = await entryOf(t.service, merchant, late);
      assert.equal(entry.state, 'originated');
      assert.equal(await eventCount(t.service, late, 'charge.voided'), 0);
      assert.equal(await eventCount(t.service, late, 'charge.originated'), 1);
      assert.deepEqual(await achBalances(t.service, merchant.merchant_id), { available: 0, ach_pending: 700, ach_payins: -700, ach_returns_due: 0 });
      await assertLedgerOk(t);
    });

    it('keeps a void the sandbox granted when its answer was lost and it is asked again after the cut-off', async () => {
      t.clock.set(MONDAY_10_UTC);
      const merchant = await t.newMerchant();
      const pk = await createCheck(t.service, merchant, { amountCents: AMOUNT, accountNumber: '55558888' });
      const asked: Array<number | undefined> = [];
      const sandbox = t.service.providers.achNetwork!;
      // The first ask, before the cut-off: the sandbox voids it, and the answer is lost (a crash before finishAchVoid).
      const begun = await beginAchVoid(t.service.db, {
        chargePk: pk,
        merchantId: merchant.merchant_id,
        nowMs: t.clock.nowMs(),
        views: EVENT_VIEWS,
        nextCheckAtMs: t.clock.nowMs() + SUBMIT_DEADLINE_MS,
        voidAskedAchMs: t.clock.nowMs(),
      });
      assert.equal(begun.kind, 'moved');
      // The merchant's ACH clock passes the cut-off before the worker asks again.
      await advanceAchClock(t.service.db, { merchantId: merchant.merchant_id, byMs: DAY_MS, nowMs: t.clock.nowMs() });
      t.clock.advance(SUBMIT_DEADLINE_MS);
      await sweepAll(
        depsWith(
          t,
          networkLike(t, {
            voidEntry: (q) => {
              asked.push(q.firstAskedAtMs);
              return sandbox.voidEntry(q);
            },
          }),
        ),
      );
      assert.deepEqual(asked, [MONDAY_10_UTC]);
      assert.equal((await entryOf(t.service, merchant, pk)).state, 'voided');
      assert.equal(await eventCount(t.service, pk, 'charge.originated'), 0);
      assert.deepEqual(await achBalances(t.service, merchant.merchant_id), { available: 0, ach_pending: 0, ach_payins: 0, ach_returns_due: 0 });
      await assertLedgerOk(t);
    });

    it('asks a lost void again at its first deadline even after reschedules, with a network whose calls end sooner', async () => {
      t.clock.set(MONDAY_10_UTC);
      const merchant = await t.newMerchant();
      const pk = await createCheck(t.service, merchant, { amountCents: AMOUNT, accountNumber: '55559999' });
      const startedAtMs = t.clock.nowMs();
      await beginAchVoid(t.service.db, {
        chargePk: pk,
        merchantId: merchant.merchant_id,
        nowMs: startedAtMs,
        views: EVENT_VIEWS,
        nextCheckAtMs: startedAtMs + 10_000,
      });
      const deps = depsWith(t, networkLike(t, { callTimeoutMs: 5_000 }));
      // Claimed too early: rescheduled for the first call's deadline, not from the reschedule.
      t.clock.set(startedAtMs + 10_000);
      await sweepAll(deps);
      assert.equal((await entryOf(t.service, merchant, pk)).state, 'voiding');
      assert.equal((await entryOf(t.service, merchant, pk)).next_check_at_ms, startedAtMs + SUBMIT_DEADLINE_MS);
      t.clock.set(startedAtMs + SUBMIT_DEADLINE_MS);
      await sweepAll(deps);
      assert.equal((await entryOf(t.service, merchant, pk)).state, 'voided');
      await assertLedgerOk(t);
    });

    it('a reschedule by a worker leaves an entry another process moved meanwhile as that process wrote it', async () => {
      t.clock.set(MONDAY_10_UTC);
      const merchant = await t.newMerchant();
      const pk = await createCheck(t.service, merchant, { amountCents: AMOUNT, accountNumber: '55550000' });
      const before = await entryOf(t.service, merchant, pk);
      await rescheduleAchEntry(t.service.db, { chargePk: pk, state: 'submitting', nextCheckAtMs: 1, nowMs: t.clock.nowMs() });
      const after = await entryOf(t.service, merchant, pk);
      assert.equal(after.next_check_at_ms, before.next_check_at_ms);
      assert.equal(after.state, 'pending');
    });

    it("settles an originated debit on Payrail's own rule when the network says only originated", async () => {
      t.clock.set(MONDAY_10_UTC);
      const merchant = await t.newMerchant();
      const pk = await createCheck(t.service, merchant, { amountCents: AMOUNT, accountNumber: '66667777' });
      const originatedAtMs = Date.UTC(2026, 10, 30, 21, 0);
      const deps = depsWith(t, networkLike(t, { status: async () => ({ state: 'originated', originatedAtMs }) }));
      t.clock.set(originatedAtMs + 60_000);
      await sweepAll(deps);
      const originated = await entryOf(t.service, merchant, pk);
      assert.equal(originated.state, 'originated');
      assert.equal(originated.next_check_at_ms, t.clock.nowMs() + ACH_STATUS_POLL_INTERVAL_MS);
      t.clock.set(settlesAtMs(originatedAtMs) - 1);
      await sweepAll(deps);
      assert.equal((await entryOf(t.service, merchant, pk)).state, 'originated');
      assert.equal((await entryOf(t.service, merchant, pk)).next_check_at_ms, settlesAtMs(originatedAtMs));
      t.clock.set(settlesAtMs(originatedAtMs));
      await sweepAll(deps);
      const settled = await entryOf(t.service, merchant, pk);
      assert.equal(settled.state, 'settled');
      assert.equal(settled.settled_at_ms, settlesAtMs(originatedAtMs));
      assert.deepEqual(await achBalances(t.service, merchant.merchant_id), { available: AMOUNT, ach_pending: 0, ach_payins: -AMOUNT, ach_returns_due: 0 });
      await assertLedgerOk(t);
    });

    it("settles an originated credit on Payrail's own rule too, posting nothing, so it is no longer asked about once its returns are watched", async () => {
      t.clock.set(MONDAY_10_UTC);
      const merchant = await t.newMerchant({ fundCents: AMOUNT });
      const pk = await createCheck(t.service, merchant, { amountCents: AMOUNT, accountNumber: '66668888', direction: 'credit' });
      const originatedAtMs = Date.UTC(2026, 10, 30, 21, 0);
      const deps = depsWith(t, networkLike(t, { status: async () => ({ state: 'originated', originatedAtMs }) }));
      t.clock.set(originatedAtMs + 60_000);
      await sweepAll(deps);
      assert.equal((await entryOf(t.service, merchant, pk)).state, 'originated');
      assert.equal((await entryOf(t.service, merchant, pk)).next_check_at_ms, t.clock.nowMs() + ACH_STATUS_POLL_INTERVAL_MS);
      const held = await achBalances(t.service, merchant.merchant_id);
      t.clock.set(settlesAtMs(originatedAtMs));
      await sweepAll(deps);
      const settled = await entryOf(t.service, merchant, pk);
      assert.equal(settled.state, 'settled');
      assert.equal(settled.settled_at_ms, settlesAtMs(originatedAtMs));
      assert.equal(await eventCount(t.service, pk, 'charge.settled'), 1);
      assert.deepEqual(await achBalances(t.service, merchant.merchant_id), held);
      // Asked about while a return may still come, then never again.
      const network = deps.network!;
      t.clock.set(settlesAtMs(originatedAtMs) + network.returnWatchMs + 1);
      await sweepAll(deps);
      assert.equal((await entryOf(t.service, merchant, pk)).next_check_at_ms, null);
      await assertLedgerOk(t);
    });

    it('applies a void the network reports for a pending entry', async () => {
      t.clock.set(MONDAY_10_UTC);
      const merchant = await t.newMerchant();
      const pk = await createCheck(t.service, merchant, { amountCents: AMOUNT, accountNumber: '77778888' });
      let voidsAsked = 0;
      const deps = depsWith(
        t,
        networkLike(t, {
          status: async () => ({ state: 'voided' }),
          voidEntry: async () => {
            voidsAsked += 1;
            throw new Error('a declined transaction cannot be voided');
          },
        }),
      );
      t.clock.advance(ACH_STATUS_POLL_INTERVAL_MS);
      await sweepAll(deps);
      const entry = await entryOf(t.service, merchant, pk);
      assert.equal(entry.state, 'voided');
      assert.equal(entry.next_check_at_ms, null);
      // One move, pending -> voided: never written voiding, so never a void for the network to be asked again.
      assert.equal(entry.void_asked_at_ms, null);
      assert.equal(voidsAsked, 0);
      assert.equal(await eventCount(t.service, pk, 'charge.voided'), 1);
      assert.deepEqual(await achBalances(t.service, merchant.merchant_id), { available: 0, ach_pending: 0, ach_payins: 0, ach_returns_due: 0 });
      await assertLedgerOk(t);
    });

    it('erases the account numbers of final checks after their retention, and only those', async () => {
      t.clock.set(MONDAY_10_UTC);
      const merchant = await t.newMerchant();
      const deps = achLifecycleDepsOf(t.service);
      const voided = await createCheck(t.service, merchant, { amountCents: AMOUNT, accountNumber: '88880001' });
      const open = await createCheck(t.service, merchant, { amountCents: AMOUNT, accountNumber: '88880002' });
      await beginAchVoid(t.service.db, {
        chargePk: voided,
        merchantId: merchant.merchant_id,
        nowMs: t.clock.nowMs(),
        views: EVENT_VIEWS,
        nextCheckAtMs: t.clock.nowMs(),
      });
      t.clock.advance(SUBMIT_DEADLINE_MS);
      await t.service.db.write((tx) => tx.run('UPDATE ach_entries SET next_check_at_ms = ? WHERE charge_pk = ?', [t.clock.nowMs() + 400 * DAY_MS, open]));
      await sweepAll(deps);
      assert.equal((await entryOf(t.service, merchant, voided)).state, 'voided');
      const sealedOf = async (pk: number) =>
        Buffer.from(
          (await t.service.db.read((tx) => tx.get<{ card_number_enc: Uint8Array }>('SELECT card_number_enc FROM charges WHERE pk = ?', [pk])))!.card_number_enc,
        );
      t.clock.advance(ACH_ACCOUNT_RETENTION_MS - 1_000);
      assert.equal(await eraseExpiredAchAccounts(t.service), 0);
      t.clock.advance(2_000);
      assert.ok((await eraseExpiredAchAccounts(t.service)) >= 1);
      assert.equal((await sealedOf(voided)).length, 0);
      const kept = await sealedOf(open);
      assert.equal(cardCipherFor(t.service.config).open(kept, 'card_number', merchant.source.id).reveal(), '88880002');
      assert.equal(await eraseExpiredAchAccounts(t.service), 0);
      await assertLedgerOk(t);
    });

    it('a bank return stops refunds of the check: nothing more refundable, a refund not yet sent is not sent, a racing hold refused', async () => {
      t.clock.set(MONDAY_10_UTC);
      const merchant = await t.newMerchant({ fundCents: 20_000 });
      const check = await createCheck(t.service, merchant, { amountCents: AMOUNT, accountNumber: '98980000' });
      const base = { chargePk: check, merchantId: merchant.merchant_id, nowMs: t.clock.nowMs(), views: EVENT_VIEWS, nextCheckAtMs: null };
      const originatedAtMs = Date.UTC(2026, 10, 30, 21, 0);
      assert.equal((await originateAchEntry(t.service.db, { ...base, originatedAtMs })).kind, 'moved');
      assert.equal((await settleAchEntry(t.service.db, { ...base, settledAtMs: settlesAtMs(originatedAtMs) })).kind, 'moved');
      // A refund reserved, its answer lost (still submitting), then the bank returns the check.
      const refund = await createCheck(t.service, merchant, {
        amountCents: 1_000,
        accountNumber: '98980000',
        direction: 'credit',
        parentPk: check,
        submit: false,
      });
      const returned = await returnAchEntry(t.service.db, {
        ...base,
        returnedAtMs: settlesAtMs(originatedAtMs) + DAY_MS,
        returnCode: 'R01',
        returnReason: 'Insufficient funds',
      });
      assert.equal(returned.kind, 'moved');
      const amounts = () =>
        t.service.db.read((tx) => tx.get<{ c: number; r: number }>('SELECT captured_cents AS c, refunded_cents AS r FROM charges WHERE pk = ?', [check]));
      assert.deepEqual({ ...(await amounts()) }, { c: 1_000, r: 1_000 });
      await assertLedgerOk(t);
      // A hold reserved against the returned check (a refund racing the return) is refused, even where the captured amount would allow it.
      await t.service.db.write((tx) => tx.run('UPDATE charges SET captured_cents = amount_cents WHERE pk = ?', [check]));
      const held = await t.service.db.write((tx) =>
        holdAchCredit(tx, { chargePk: refund, merchantId: merchant.merchant_id, parentPk: check, amountCents: 100, nowMs: t.clock.nowMs() }),
      );
      assert.equal(held, 'exceeds_refundable');
      await t.service.db.write((tx) => tx.run('UPDATE charges SET captured_cents = refunded_cents WHERE pk = ?', [check]));
      // The worker does not send the refund again: failed, its hold released, and the check's refundable amount stays zero.
      let sent = 0;
      const deps = depsWith(
        t,
        networkLike(t, {
          submit: async (s) => {
            sent += 1;
            return t.service.providers.achNetwork!.submit(s);
          },
        }),
      );
      t.clock.advance(SUBMIT_DEADLINE_MS);
      await sweepAll(deps);
      assert.equal(sent, 0);
      assert.equal((await entryOf(t.service, merchant, refund)).state, 'failed');
      assert.deepEqual({ ...(await amounts()) }, { c: 0, r: 0 });
      await assertLedgerOk(t);
      // A check row whose captured amount disagrees with its entry is reported.
      await t.service.db.write((tx) => tx.run('UPDATE charges SET captured_cents = amount_cents WHERE pk = ?', [check]));
      const report = await verifyLedger(t.service.db);
      assert.ok(report.problems.includes(`check ${check}: captured amount or status does not match its ACH entry's state`), report.problems.join('\n'));
      await t.service.db.write((tx) => tx.run("UPDATE charges SET captured_cents = 0, status = 'declined' WHERE pk = ?", [check]));
      assert.ok((await verifyLedger(t.service.db)).problems.includes(`check ${check}: captured amount or status does not match its ACH entry's state`));
      await t.service.db.write((tx) => tx.run("UPDATE charges SET status = 'approved' WHERE pk = ?", [check]));
      await assertLedgerOk(t);
    });

    it('ledger verify reports tampered check postings, states and refunded totals', async () => {
      t.clock.set(MONDAY_10_UTC);
      const merchant = await t.newMerchant();
      const settled = await createCheck(t.service, merchant, { amountCents: AMOUNT, accountNumber: '99990000' });
      const deps = achLifecycleDepsOf(t.service);
      await advanceAchClock(t.service.db, { merchantId: merchant.merchant_id, byMs: 4 * DAY_MS, nowMs: t.clock.nowMs() });
      await t.service.db.write((tx) => tx.run('UPDATE ach_entries SET next_check_at_ms = ? WHERE charge_pk = ?', [t.clock.nowMs(), settled]));
      await sweepAll(deps);
      assert.equal((await entryOf(t.service, merchant, settled)).state, 'settled');
      // A refund of it (a credit), held from available.
      const refund = await createCheck(t.service, merchant, { amountCents: 1_200, accountNumber: '99990000', direction: 'credit', parentPk: settled });
      assert.equal(
        Number((await t.service.db.read((tx) => tx.get<{ r: number }>('SELECT refunded_cents AS r FROM charges WHERE pk = ?', [settled])))!.r),
        1_200,
      );
      await assertLedgerOk(t);

      // The settle posting's amount is changed, its accounts' balances with it: every balance still equals its postings.
      await t.service.db.write(async (tx) => {
        await tx.run("UPDATE postings SET amount_cents = amount_cents - 1 WHERE ref_id = ? AND kind = 'check.settle'", [String(settled)]);
        await tx.run('UPDATE accounts SET balance_cents = balance_cents + 1 WHERE id = ?', [`${merchant.merchant_id}:ach_pending`]);
        await tx.run('UPDATE accounts SET balance_cents = balance_cents - 1 WHERE id = ?', [`${merchant.merchant_id}:available`]);
      });
      let report = await verifyLedger(t.service.db);
      assert.equal(report.ok, false);
      assert.ok(report.problems.includes(`check ${settled} (settled) has postings that do not match its state`), report.problems.join('\n'));
      assert.ok(report.problems.includes(`merchant ${merchant.merchant_id}: ach_pending ledger 1 != 0 from records`), report.problems.join('\n'));
      await t.service.db.write(async (tx) => {
        await tx.run("UPDATE postings SET amount_cents = amount_cents + 1 WHERE ref_id = ? AND kind = 'check.settle'", [String(settled)]);
        await tx.run('UPDATE accounts SET balance_cents = balance_cents - 1 WHERE id = ?', [`${merchant.merchant_id}:ach_pending`]);
        await tx.run('UPDATE accounts SET balance_cents = balance_cents + 1 WHERE id = ?', [`${merchant.merchant_id}:available`]);
      });
      await assertLedgerOk(t);

      // A state changed without its transition; a refunded total changed without a refund.
      await t.service.db.write(async (tx) => {
        await tx.run("UPDATE ach_entries SET state = 'voided' WHERE charge_pk = ?", [refund]);
        await tx.run('UPDATE charges SET refunded_cents = refunded_cents + 1 WHERE pk = ?', [settled]);
      });
      report = await verifyLedger(t.service.db);
      assert.ok(report.problems.includes(`check ${refund} (voided) has postings that do not match its state`), report.problems.join('\n'));
      assert.ok(report.problems.includes(`check ${settled}: refunded amount does not equal the sum of its live refunds`), report.problems.join('\n'));
      assert.ok(report.problems.includes(`merchant ${merchant.merchant_id}: ach_payins ledger -3800 != -5000 from records`), report.problems.join('\n'));
      await t.service.db.write(async (tx) => {
        await tx.run("UPDATE ach_entries SET state = 'pending' WHERE charge_pk = ?", [refund]);
        await tx.run('UPDATE charges SET refunded_cents = refunded_cents - 1 WHERE pk = ?', [settled]);
      });
      await assertLedgerOk(t);
    });
  });
}
