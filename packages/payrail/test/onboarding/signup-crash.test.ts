// A crash between a change and its mail, on both stores: `payrail serve`
// commits a sign-up (the request and its confirmation mail, in one
// transaction) with its worker off, and is killed with SIGKILL before any
// mail goes out. Restarted with its worker, it sends the mail, exactly once;
// killed and restarted again, it does not send it a second time.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../helpers/browser.ts';
import { runCliJson } from '../helpers/cli.ts';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { createStore, STORE_KINDS, type TestStore } from '../helpers/stores.ts';

/** Sends the sign-up form as a browser would: its page first (for the form's cookie and token), then the post. */
async function signUp(baseUrl: string, email: string): Promise<number> {
  const formPage = await fetch(`${baseUrl}/signup`);
  const cookie = (formPage.headers.get('set-cookie') ?? '').split(';')[0]!;
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await formPage.text())?.[1] ?? '';
  const answer = await fetch(`${baseUrl}/signup`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, name: 'Grace', company: 'Hopper Labs', email, corridors: 'US to Kenya' }).toString(),
    redirect: 'manual',
  });
  return answer.status;
}

for (const kind of STORE_KINDS) {
  describe(`SIGKILL between a change and its mail (${kind})`, () => {
    let store: TestStore;
    let smtp: TestSmtp;
    let server: RunningServer | undefined;

    before(async () => {
      store = await createStore(kind);
      smtp = await startSmtp();
    });
    after(async () => {
      await server?.stop();
      await smtp?.close();
      await store?.dispose();
    });

    it('sends the mail of a committed change once after the restart, and never again', async () => {
      const env = { ...store.env, PAYRAIL_SMTP_URL: smtp.url };
      server = await startServer({ ...env, PAYRAIL_WORKER: 'off' });
      const email = `crash-${kind}@example.com`;
      assert.equal(await signUp(server.url, email), 200);
      await server.kill();
      assert.equal(smtp.mails.length, 0);
      const pending = await runCliJson<Array<{ to_address: string; status: string }>>(['mail', 'list', '--to', email], store.env);
      assert.deepEqual(
        pending.map((m) => m.status),
        ['pending'],
      );

      // Restarted with its worker: the mail goes out.
      server = await startServer(env);
      await smtp.waitFor((m) => m.to.includes(email));
      // A second mail, sent after the first (the outbox goes in order), shows the worker went past the first again.
      assert.equal(await signUp(server.url, `after-${kind}@example.com`), 200);
      await smtp.waitFor((m) => m.to.includes(`after-${kind}@example.com`));
      await server.kill();

      // Killed and started once more: still one mail, recorded as sent.
      server = await startServer(env);
      assert.equal(await signUp(server.url, `last-${kind}@example.com`), 200);
      await smtp.waitFor((m) => m.to.includes(`last-${kind}@example.com`));
      await server.stop();
      const sent = smtp.mails.filter((m) => m.to.includes(email));
      assert.equal(sent.length, 1);
      const listed = await runCliJson<Array<{ status: string; text_body: string }>>(['mail', 'list', '--to', email], store.env);
      assert.deepEqual(
        listed.map((m) => [m.status, m.text_body]),
        [['sent', '']],
      );
    });
  });
}
