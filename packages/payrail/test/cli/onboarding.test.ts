// The operator's onboarding commands through the real CLI, on both stores:
// `merchant onboard` (how production merchants get credentials: a one-time
// link by mail, never the secrets), `mail list` reading the outbox with no
// SMTP server, and `signup list|approve|reject` refusing what cannot be done.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runCli, runCliJson } from '../helpers/cli.ts';
import { createStore, STORE_KINDS, type TestStore } from '../helpers/stores.ts';

for (const kind of STORE_KINDS) {
  describe(`onboarding commands (${kind})`, () => {
    let store: TestStore;
    let env: Record<string, string>;

    before(async () => {
      store = await createStore(kind);
      env = { ...store.env, PAYRAIL_PUBLIC_URL: 'https://payrail.example' };
    });
    after(async () => store?.dispose());

    it('onboards a merchant by e-mail: the outbox holds a one-time credentials link and no secret', async () => {
      const done = await runCliJson<{ merchant_id: string; email: string }>(
        ['merchant', 'onboard', '--name', 'Acme <b>Ltd</b>', '--email', 'Dev@Acme.example'],
        env,
      );
      assert.match(done.merchant_id, /^mer_/);
      assert.equal(done.email, 'dev@acme.example');
      const mails = await runCliJson<Array<{ to_address: string; status: string; text_body: string; html_body: string }>>(
        ['mail', 'list', '--to', 'dev@acme.example'],
        env,
      );
      assert.equal(mails.length, 1);
      assert.equal(mails[0]!.status, 'pending');
      assert.match(mails[0]!.text_body, /https:\/\/payrail\.example\/dashboard\/welcome\/lnk_[0-9A-Za-z]{16}\.[A-Za-z0-9_-]{43}/);
      assert.ok(!/sbx_|live_/.test(mails[0]!.text_body));
      // A typed name carries no markup into a mail, escaped or not (docs/security.md).
      assert.ok(!mails[0]!.html_body.includes('<b>') && !mails[0]!.html_body.includes('&lt;b&gt;'));
      assert.ok(mails[0]!.html_body.includes('Acme bLtd/b'));
      const text = await runCli(['mail', 'list'], env);
      assert.equal(text.code, 0);
      assert.match(text.stdout, /to dev@acme\.example {2}Your Payrail sandbox credentials are ready/);
    });

    it('refuses bad input with a clear message and makes nothing', async () => {
      const badEmail = await runCli(['merchant', 'onboard', '--name', 'X', '--email', 'nope'], env);
      assert.notEqual(badEmail.code, 0);
      assert.match(badEmail.stderr, /email must be an e-mail address/);
      const missing = await runCli(['signup', 'approve', 'sgn_doesnotexist12345'], env);
      assert.notEqual(missing.code, 0);
      assert.match(missing.stderr, /sign-up request sgn_doesnotexist12345 not found/);
      const status = await runCli(['signup', 'list', '--status', 'maybe'], env);
      assert.notEqual(status.code, 0);
      assert.match(status.stderr, /--status must be one of/);
      assert.deepEqual(await runCliJson(['signup', 'list'], env), []);
      assert.equal((await runCliJson<unknown[]>(['mail', 'list'], env)).length, 1);
    });
  });
}
