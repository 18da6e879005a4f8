// Recorded answers of the Payrail APIs, in the shapes of the specification
// and the product decisions: both envelopes of the transfer API, the three
// charge shapes, and the odd forms the SDK must accept (execute's numbers as
// strings, the -2 "not found" status in execute's shape).

export const KEYS = {
  transfer: 'sbx_tk_AAAAAAAAAAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB',
  source: 'sbx_sk_CCCCCCCCCCCCCCCC_DDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD',
  pin: '12345678',
  tokenization: 'sbx_pt_EEEEEEEEEEEEEEEE_FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF',
};

export const failure = (code: string, message: string) => ({ success: 'false', error: { message, code } });

export const balance = (balanceCents: number, overdraftCents: number) => ({
  success: true,
  error: '',
  balance: { balance: balanceCents, overdraft: overdraftCents },
});

export const kyc = (verify: boolean, limit: string, url: string) => ({ success: true, error: '', kyc_verify: verify, money_limit: limit, kyc_url: url });

export const check = (receiverStatus: 'registered' | 'unregistered' = 'registered') => ({
  success: true,
  error: '',
  attribute: [
    { name: 'fx_rate', value: '129.25' },
    { name: 'receivedAmount', value: '1292.50' },
    { name: 'receiverStatus', value: receiverStatus },
  ],
});

export const executed = (id: string, state = '0', substate = '0') => ({
  success: true,
  error: '',
  payment_response: { id, payment_id: null, state, substate, code: '0' },
});

export const status = (id: string, state: number, substate: number, final: 0 | 1, attribute: Array<{ name: string; value: string }> = []) => ({
  success: true,
  error: '',
  status: {
    result: {
      id,
      state,
      substate,
      final,
      code: 0,
      attribute,
      server_time: '2026-01-01T00:00:05.000Z',
      trans: final === 1 && state === 60 ? 'T123' : null,
      sum_prov: null,
    },
  },
});

/** The spec's answer for an unknown transfer id: execute's shape with state -2. */
export const statusUnknown = (id: string) => ({
  success: true,
  error: '',
  payment_response: { id, payment_id: null, state: '-2', substate: '0', code: '0' },
});

export const billing = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  street: '1 Main St',
  city: 'Springfield',
  state: 'IL',
  zip: '62701',
  country: 'US',
  phone: '+15555550100',
};

/** Shape A: approved (or, with "Pending"/"P", pending review). */
export const chargeApproved = (reference: number, amount: number, status = 'Approved', statusCode = 'A') => ({
  status,
  status_code: statusCode,
  reference_number: reference,
  auth_code: 'A1B2C3',
  auth_amount: amount,
  card_type: 'Visa',
  last_4: '1111',
  avs_result: 'Address: Match & 5 Digit Zip: Match',
  avs_result_code: 'Y',
  cvv2_result: 'Match',
  cvv2_result_code: 'M',
  version: '2.0',
  transaction: {
    id: reference,
    created_at: '2026-01-01T00:00:00.000Z',
    status_details: { status: status === 'Approved' ? 'captured' : 'pending' },
    amount_details: {
      amount,
      subtotal: amount,
      tax: 0,
      tax_percent: 0,
      shipping: 0,
      discount: 0,
      tip: 0,
      surcharge: 0,
      original_requested_amount: amount,
      original_authorized_amount: amount,
    },
    card_details: {
      card_type: 'Visa',
      last4: '1111',
      bin: '411111',
      auth_code: 'A1B2C3',
      avs_result: 'Address: Match & 5 Digit Zip: Match',
      avs_result_code: 'Y',
      avs_street: 'Match',
      avs_zip: 'Match',
      cvv_result: 'Match',
      cvv_result_code: 'M',
      cavv_result: '',
      cavv_result_code: null,
      expiry_month: 12,
      expiry_year: 2030,
      bin_details: { type: 'C' },
      name: null,
    },
    billing_info: { ...billing, street2: '' },
    shipping_info: {
      first_name: null,
      last_name: null,
      street: null,
      street2: null,
      city: null,
      state: null,
      zip: null,
      country: null,
      phone: null,
    },
    transaction_details: {
      type: 'charge',
      source: 'API',
      batch_id: 1,
      description: null,
      order_number: null,
      invoice_number: null,
      po_number: null,
      reference_number: null,
      clerk: null,
      terminal: null,
      client_ip: null,
      schedule_id: null,
    },
    customer: { customer_id: null, identifier: null, email: null, fax: null },
    custom_fields: {},
    settled_date: null,
  },
});

/** Shape B: declined or failed. */
export const chargeDeclined = (reference: number, amount: number, code: string, message: string, status: 'declined' | 'failed' = 'declined') => ({
  id: String(reference),
  status,
  amount,
  currency: 'USD',
  error: { code, message },
  card: { last_four: '0002', card_type: 'Visa' },
  created_at: '2026-01-01T00:00:00.000Z',
});

/** Shape C: a rejected request. */
export const rejected = (code: string, message: string) => ({ error: { code, message } });

export const nonce = { nonce: 'nonce-abc123', expires_at: '2026-01-01T00:15:00.000Z', card_type: 'Visa', last_4: '1111' };

// Events and webhooks (docs/api-decisions.md section 14).
export const webhookEndpoint = (id = 'we_0123456789abcdef', events: string[] = ['transfer.succeeded']) => ({
  id,
  url: 'https://merchant.example/payrail/hooks',
  events,
  enabled: true,
  created_at: '2026-01-01T00:00:00.000Z',
  disabled_reason: null,
});
export const webhookEndpointWithSecret = (id = 'we_0123456789abcdef') => ({ ...webhookEndpoint(id), signature: 'whsec_0123456789abcdefghijklmnopqrstuv' });
export const transferEvent = (id = 'evt_42') => ({
  id,
  type: 'transfer.succeeded',
  created_at: '2026-01-01T00:00:01.000Z',
  livemode: false,
  data: status('1001', 60, 0, 1).status.result,
});
export const eventPage = (hasMore = false) => ({ data: [transferEvent('evt_43'), transferEvent('evt_42')], has_more: hasMore });
