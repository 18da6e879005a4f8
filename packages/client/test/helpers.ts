// Builds a client on a scripted fetch and virtual time.
import { Payrail, type PayrailOptions } from '../src/index.ts';
import { fakeFetch, virtualTime, type Step } from './fake-fetch.ts';
import { KEYS } from './fixtures.ts';

export const BASE_URL = 'https://sandbox.payrail.test';

export function clientWith(script: Step[], options: Partial<PayrailOptions> = {}) {
  const fake = fakeFetch(script);
  const time = virtualTime();
  const client = new Payrail({
    base_url: BASE_URL,
    api_key: KEYS.transfer,
    payin: { api_key: KEYS.source, pin: KEYS.pin, tokenization_token: KEYS.tokenization },
    fetch: fake.fetch,
    sleep: time.sleep,
    now_ms: time.now_ms,
    ...options,
  });
  return { client, fake, time };
}

export const KE_TRANSFER = {
  id: '1001',
  sender_phone: '+15555550123',
  receiver_phone: '+254712345678',
  amount: '10.00',
  service: '1001',
  receiver_country: 'KE',
  receiver_currency: 'KES',
} as const;
