import { createTestApp } from './helpers/app.ts';
import { basicOf, chargeBody, postCharge, tokenizeRaw } from './helpers/payin.ts';
for (const kind of ['sqlite', 'postgres'] as const) {
const t = await createTestApp(kind, { env: { LOG_LEVEL: 'warn' } });
const m = await t.newMerchant();
const auth = basicOf(m);
const one = async () => {
  const tok = await tokenizeRaw(t.app, m.source.tokenization_token, { card_number: '4111111111111111', expiry_month: 12, expiry_year: 2035, cvv2: '123' });
  const r = await postCharge(t.app, auth, chargeBody(tok.json().nonce));
  if (r.statusCode !== 200) throw new Error(r.body);
};
for (let i = 0; i < 200; i++) await one();
const start = performance.now(); let n = 0;
while (performance.now() - start < 4000) { await Promise.all(Array.from({ length: 32 }, one)); n += 32; }
console.log(kind, 'tokenize+charge per s (in-process inject, c=32):', Math.round(n / ((performance.now() - start) / 1000)));
await t.close();
}
