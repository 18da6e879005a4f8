// A captured delivery replayed later is refused (behaviour.md section 11):
// every delivery carries Payrail-Signature, which binds the body to the time
// it was sent, and the SDK's verifyWebhook refuses a timestamp more than 5
// minutes from now. X-Signature still signs the body alone, exactly as
// accept.blue plugins verify it; the panel tells receivers to check the
// timestamped signature.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifyWebhook, WEBHOOK_TOLERANCE_DEFAULT_S } from '../../../client/src/webhooks.ts';
import { createUser } from '../../src/flows/panel/users.ts';
import { executeTransfer } from '../../src/flows/transfers/execute.ts';
import { deliverDue } from '../../src/flows/webhooks/deliver.ts';
import { sendWebhook } from '../../src/providers/webhook-sender.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { decodeEntities, PanelClient } from '../helpers/panel.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { transferBody } from '../helpers/transfers.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';
import crypto from 'node:crypto';

const PASSWORD = 'correct horse battery staple';

for (const kind of STORE_KINDS) {
  describe(`webhook replays (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
    });
    after(() => t.close());

    it('finding 12: a delivery replayed after the 5-minute tolerance fails the SDK verification; X-Signature stays the body-only HMAC', async () => {
      const receiver = await startReceiver();
      try {
        const shop = await t.newMerchant({ fundCents: 100_000 });
        await createUser(t.service, { email: 'replay@example.com', role: 'merchant', merchantId: shop.merchant_id, password: PASSWORD });
        const panel = new PanelClient(t.app);
        await panel.signIn('replay@example.com', PASSWORD);
        await panel.get('/dashboard/webhooks');
        const created = await panel.post('/dashboard/webhooks', { url: receiver.url, events: 'transfer.created' });
        const secret = /id="webhook-secret" class="mono" readonly value="(whsec_[0-9A-Za-z]+)"/.exec(created.body)?.[1];
        assert.ok(secret);
        // The panel names the timestamped signature as the one to verify, with its tolerance.
        const hint = decodeEntities(created.body.replace(/<[^>]+>/g, ''));
        assert.match(hint, /Verify Payrail-Signature/);
        assert.match(hint, /more than 5 minutes from now/);

        await executeTransfer(t.service, shop.merchant_id, transferBody());
        await deliverDue({ db: t.service.db, clock: t.clock, log: t.service.log, config: t.service.config, send: sendWebhook });
        const [delivery] = receiver.received;
        assert.ok(delivery !== undefined);
        const headers = delivery.headers as Record<string, string>;
        assert.match(headers['payrail-signature']!, /^t=\d+,v1=[0-9a-f]{64}$/);
        assert.equal(headers['x-signature'], crypto.createHmac('sha256', secret).update(delivery.body).digest('hex'));
        const sentAtMs = t.clock.nowMs();
        const event = await verifyWebhook(delivery.body, headers, secret, { now_ms: sentAtMs });
        assert.equal(typeof event.id, 'string');

        // The attacker replays the captured delivery 6 minutes later: refused.
        const later = sentAtMs + (WEBHOOK_TOLERANCE_DEFAULT_S + 60) * 1000;
        await assert.rejects(verifyWebhook(delivery.body, headers, secret, { now_ms: later }), {
          code: 'invalid_signature',
          message: /timestamp is more than 300 s from now/,
        });
        // A fresh t cannot be written without the secret; dropping the timestamped header is refused too.
        const v1 = /v1=([0-9a-f]{64})/.exec(headers['payrail-signature']!)![1]!;
        const retimed = { ...headers, 'payrail-signature': `t=${Math.floor(later / 1000)},v1=${v1}` };
        await assert.rejects(verifyWebhook(delivery.body, retimed, secret, { now_ms: later }), { code: 'invalid_signature', message: /does not match/ });
        const bodyOnly = { 'x-signature': headers['x-signature']! };
        await assert.rejects(verifyWebhook(delivery.body, bodyOnly, secret, { now_ms: sentAtMs }), {
          code: 'invalid_signature',
          message: /Payrail-Signature header is missing/,
        });
      } finally {
        await receiver.close();
      }
    });
  });
}
