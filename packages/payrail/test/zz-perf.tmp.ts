import { createTestApp } from './helpers/app.ts';
import { basicOf, chargeBody, postCharge, tokenizeRaw } from './helpers/payin.ts';
const kind = (process.argv[2] ?? 'sqlite') as 'sqlite';
const t = await createTestApp(kind, { env: { LOG_LEVEL: 'warn' } });
const m = await t.newMerchant();
const auth = basicOf(m);
const tok = () => tokenizeRaw(t.app, m.source.tokenization_token, { card_number: '4111111111111111', expiry_month: 12, expiry_year: 2035, cvv2: '123' });
for (let i = 0; i < 100; i++) await tok();
let start = performance.now(); let n = 0;
while (performance.now() - start < 3000) { await Promise.all(Array.from({ length: 32 }, tok)); n += 32; }
console.log(kind, 'tokenize/s', Math.round(n / ((performance.now() - start) / 1000)));
const nonces: string[] = [];
for (let i = 0; i < 80; i++) nonces.push(...(await Promise.all(Array.from({length: 32}, tok))).map(r => r.json().nonce));
start = performance.now(); n = 0;
while (performance.now() - start < 3000 && nonces.length >= 32) { await Promise.all(nonces.splice(0, 32).map((nn) => postCharge(t.app, auth, chargeBody(nn)))); n += 32; }
console.log(kind, 'charge/s', Math.round(n / ((performance.now() - start) / 1000)));
start = performance.now(); n = 0;
while (performance.now() - start < 2000) { await Promise.all(Array.from({ length: 32 }, () => t.app.inject({method:'GET', url:'/api/agent_balance', headers: {'api-key': m.transfer_api_key}}))); n += 32; }
console.log(kind, 'balance/s', Math.round(n / ((performance.now() - start) / 1000)));
await t.close();
