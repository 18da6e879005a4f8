import { createTestApp } from './helpers/app.ts';
for (const kind of ['sqlite', 'postgres'] as const) {
  const t = await createTestApp(kind);
  const m = await t.newMerchant({ fundCents: 100000 });
  const h = { 'api-key': m.transfer_api_key, 'content-type': 'application/json' };
  const body = { id: '1001', sender_phone: '+14155552671', receiver_phone: '+254712345678', amount: '10.00', service: '1001', receiver_country: 'KE', receiver_currency: 'KES', attribute: [] };
  let r = await t.app.inject({ method: 'POST', url: '/api/checkTransfer', headers: h, payload: body });
  console.log(r.statusCode, r.body);
  r = await t.app.inject({ method: 'POST', url: '/api/transfer', headers: h, payload: body });
  console.log(r.statusCode, r.body);
  r = await t.app.inject({ method: 'POST', url: '/api/transfer', headers: h, payload: body });
  console.log(r.statusCode, r.body);
  console.log(await t.worker.drain());
  r = await t.app.inject({ method: 'GET', url: '/api/status/1001', headers: h });
  console.log(r.statusCode, r.body);
  r = await t.app.inject({ method: 'GET', url: '/api/status/999', headers: h });
  console.log(r.statusCode, r.body);
  r = await t.app.inject({ method: 'GET', url: '/api/kyc/254712340002', headers: h });
  console.log(r.statusCode, r.body);
  r = await t.app.inject({ method: 'GET', url: '/api/agent_balance', headers: h });
  console.log(r.statusCode, r.body);
  await t.close();
}
