// Several payout networks in one deployment (behaviour.md section 18): a
// corridor names its network and that network's settings in the corridors
// file, the received amount is rounded to what the network accepts when the
// quote is made, and a transfer stays with the network it was submitted to.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { CorridorFileError, parseCorridors } from '../../src/domain/corridors.ts';
import type { Corridor } from '../../src/domain/corridors.ts';
import { advanceDueTransfers } from '../../src/flows/transfers/advance.ts';
import { payoutNetworkOfTransfer } from '../../src/flows/transfers/networks.ts';
import type { Providers } from '../../src/providers/index.ts';
import type { PayoutNetwork } from '../../src/providers/payout-network.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { STORE_KINDS, tempDir } from '../helpers/stores.ts';
import { assertLedgerOk, caller, transferBody, transferPk } from '../helpers/transfers.ts';
import { resetWholeUnitsNetwork, seen } from '../helpers/whole-units-network.ts';

const MODULE = path.resolve(import.meta.dirname, '../helpers/whole-units-network.ts');
const SANDBOX_FILE = path.resolve(import.meta.dirname, '../../config/corridors.sandbox.json');

/** The sandbox corridors, with Kenya (1001) paid by the whole-units network. */
function corridorsFile(kenya: Record<string, unknown>): string {
  const document = JSON.parse(fs.readFileSync(SANDBOX_FILE, 'utf8')) as { corridors: Array<Record<string, unknown>> };
  document.corridors = document.corridors.map((corridor) => (corridor.service === '1001' ? { ...corridor, ...kenya } : corridor));
  const file = path.join(tempDir(), 'corridors.json');
  fs.writeFileSync(file, JSON.stringify(document));
  return file;
}

describe('corridor payout settings in the corridors file', () => {
  const base = {
    service: '1',
    country: 'KE',
    currency: 'KES',
    currency_minor_units: 2,
    fx_rate: '1',
    min_amount: '1.00',
    max_amount: '9.00',
    required_attributes: [],
  };

  it('reads the connector, its settings and the margin, with defaults', () => {
    const table = parseCorridors({
      corridors: [base, { ...base, service: '2', payout_connector: 'pawapay', payout_settings: { provider: 'MPESA_KEN' }, fx_margin_percent: '1.25' }],
    });
    assert.deepEqual(
      table.corridors.map((c) => [c.payoutConnector, c.payoutSettings, c.fxMarginPercent]),
      [
        [null, {}, '0'],
        ['pawapay', { provider: 'MPESA_KEN' }, '1.25'],
      ],
    );
  });

  it('refuses bad values, naming each', () => {
    const bad = {
      corridors: [
        { ...base, payout_connector: '', payout_settings: { Provider: 'x', amount: 5 }, fx_margin_percent: '100' },
        { ...base, service: '2', payout_settings: ['x'], fx_margin_percent: 1.5 },
        { ...base, service: '3', fx_margin_percent: '0.12345' },
      ],
    };
    assert.throws(
      () => parseCorridors(bad),
      (error: unknown) => {
        assert.ok(error instanceof CorridorFileError);
        assert.deepEqual(error.problems, [
          'corridors[0].payout_connector must be a connector name such as "mtn-momo" or "pawapay", or a module path',
          'corridors[0].payout_settings: "Provider" is not a setting name (lower case, digits, _)',
          'corridors[0].payout_settings.amount must be non-empty text of at most 200 characters',
          'corridors[0].fx_margin_percent must be a decimal string from "0" to below "100" with at most 4 decimals, such as "1.5"',
          'corridors[1].payout_settings must be an object of text settings such as {"provider": "MTN_MOMO_ZMB"}',
          'corridors[1].fx_margin_percent must be a decimal string from "0" to below "100" with at most 4 decimals, such as "1.5"',
          'corridors[2].fx_margin_percent must be a decimal string from "0" to below "100" with at most 4 decimals, such as "1.5"',
        ]);
        return true;
      },
    );
  });
});

for (const kind of STORE_KINDS) {
  describe(`a corridor paid by its own network (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      const file = corridorsFile({ payout_connector: MODULE, payout_settings: { region: 'east' } });
      t = await createTestApp(kind, { env: { PAYRAIL_CORRIDORS_FILE: file } });
    });
    after(() => t.close());
    afterEach(() => resetWholeUnitsNetwork());

    it('quotes in whole units, sends the corridor and a UUID that names the transfer, and keeps the transfer with that network', async () => {
      const merchant = await t.newMerchant({ fundCents: 100_000 });
      const api = caller(t.app, merchant.transfer_api_key);
      // 10.00 USD x 129.25 = 1292.50 KES: the network takes whole shillings, so 1293.
      const kenya = transferBody({ amount: '10.00' });
      const check = await api.check(kenya);
      assert.equal(check.status, 200);
      const attribute = (check.body as { attribute: Array<{ name: string; value: string }> }).attribute;
      assert.deepEqual(
        attribute.filter((a) => a.name === 'fx_rate' || a.name === 'receivedAmount'),
        [
          { name: 'fx_rate', value: '129.25' },
          { name: 'receivedAmount', value: '1293.00' },
        ],
      );
      assert.equal(seen.lookups.at(-1)?.corridor?.service, '1001');
      assert.equal((await api.execute(kenya)).status, 200);
      // Ghana stays with the deployment's network.
      const ghana = transferBody({ country: 'GH', amount: '10.00' });
      assert.equal((await api.execute(ghana)).status, 200);

      // The network is recorded at execute, before anything is sent.
      const recorded = await t.service.db.read((tx) =>
        tx.all<{ payout_connector: string | null }>('SELECT payout_connector FROM transfers WHERE merchant_id = ? ORDER BY pk', [merchant.merchant_id]),
      );
      assert.deepEqual(
        recorded.map((r) => r.payout_connector),
        [MODULE, 'sandbox'],
      );
      await advanceDueTransfers(t.service);
      assert.equal(seen.submissions.length, 1);
      const submission = seen.submissions[0]!;
      const pk = await transferPk(t.service, merchant.merchant_id, kenya.id);
      assert.equal(submission.transferId, kenya.id);
      assert.equal(submission.corridor.service, '1001');
      assert.deepEqual(submission.corridor.payoutSettings, { region: 'east' });
      assert.equal(submission.receivedMinor, 129_300);
      assert.deepEqual(t.service.providerKeys.parseUuid(submission.idempotencyUuid), { kind: 'transfer', pk });

      const rows = await t.service.db.read((tx) =>
        tx.all<{ id: string; state: number; payout_connector: string | null; received_minor: number }>(
          'SELECT id, state, payout_connector, received_minor FROM transfers WHERE merchant_id = ? ORDER BY pk',
          [merchant.merchant_id],
        ),
      );
      assert.deepEqual(
        rows.map((r) => [r.id, Number(r.state), r.payout_connector, Number(r.received_minor)]),
        [
          [kenya.id, 60, MODULE, 129_300],
          [ghana.id, 60, 'sandbox', 15_400],
        ],
      );
      const status = (await api.status(kenya.id)).body as { status: { result: { sum_prov: string | null } } };
      assert.equal(status.status.result.sum_prov, '1293.00');
      await assertLedgerOk(t.service);
    });
  });
}

describe('the network of a stored transfer', () => {
  const network = (name: string) => ({ name }) as unknown as PayoutNetwork;
  const providers = {
    payoutNetwork: network('default'),
    defaultPayoutConnector: 'default',
    payoutNetworks: new Map([
      ['default', network('default')],
      ['other', network('other')],
    ]),
  } as unknown as Providers;
  const corridor = { payoutConnector: 'other' } as unknown as Corridor;
  const nameOf = (row: { payout_connector: string | null; state: number; attempts: number; provider_ref: string | null }, corridorGone = false) =>
    payoutNetworkOfTransfer(providers, row, corridorGone ? undefined : corridor)?.name ?? null;

  it('is the one recorded; an older row that may have been sent went to the default network; one never sent goes to its corridor', () => {
    assert.equal(nameOf({ payout_connector: 'default', state: 0, attempts: 0, provider_ref: null }), 'default');
    assert.equal(nameOf({ payout_connector: null, state: 40, attempts: 1, provider_ref: null }), 'default');
    assert.equal(nameOf({ payout_connector: null, state: 0, attempts: 2, provider_ref: null }), 'default');
    assert.equal(nameOf({ payout_connector: null, state: 0, attempts: 0, provider_ref: null }), 'other');
    // A network no longer configured, or no corridor for a row never sent: nothing to send to.
    assert.equal(nameOf({ payout_connector: 'gone', state: 40, attempts: 1, provider_ref: 'x' }), null);
    assert.equal(nameOf({ payout_connector: null, state: 0, attempts: 0, provider_ref: null }, true), null);
  });
});

describe('payout settings a network refuses', () => {
  it('stop the start, naming the corridor and the connector', async () => {
    const file = corridorsFile({ payout_connector: MODULE });
    await assert.rejects(createTestApp('sqlite', { env: { PAYRAIL_CORRIDORS_FILE: file } }), (error: Error) =>
      error.message.includes(`corridor 1001 (payout connector ${MODULE}): payout_settings.region is required`),
    );
  });
});
