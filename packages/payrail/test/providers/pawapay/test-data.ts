// pawaPay's sandbox as its documentation describes it: the providers the
// stand-in serves (a few countries, their phone prefixes, currencies and
// whether amounts take decimals, as active configuration reports them) and
// the published sandbox test numbers, whose last three digits choose the
// payout's outcome (docs.pawapay.io, "Testing the integration" / test
// numbers; the same suffixes for every provider listed here).

export interface StandInProvider {
  readonly provider: string;
  readonly country: string;
  /** Country calling code. */
  readonly prefix: string;
  /** Leading digits after the calling code that belong to this provider. */
  readonly ranges: readonly string[];
  /** National significant number length (digits after the calling code). */
  readonly nationalDigits: number;
  readonly currency: string;
  readonly decimalsInAmount: 'TWO_PLACES' | 'NONE';
  readonly minAmount: string;
  readonly maxAmount: string;
}

export const PROVIDERS: readonly StandInProvider[] = [
  {
    provider: 'MTN_MOMO_ZMB',
    country: 'ZMB',
    prefix: '260',
    ranges: ['76', '96'],
    nationalDigits: 9,
    currency: 'ZMW',
    decimalsInAmount: 'TWO_PLACES',
    minAmount: '1',
    maxAmount: '50000',
  },
  {
    provider: 'AIRTEL_OAPI_ZMB',
    country: 'ZMB',
    prefix: '260',
    ranges: ['77', '97'],
    nationalDigits: 9,
    currency: 'ZMW',
    decimalsInAmount: 'TWO_PLACES',
    minAmount: '1',
    maxAmount: '50000',
  },
  {
    provider: 'ZAMTEL_ZMB',
    country: 'ZMB',
    prefix: '260',
    ranges: ['95'],
    nationalDigits: 9,
    currency: 'ZMW',
    decimalsInAmount: 'TWO_PLACES',
    minAmount: '1',
    maxAmount: '50000',
  },
  {
    provider: 'MTN_MOMO_RWA',
    country: 'RWA',
    prefix: '250',
    ranges: ['78', '79'],
    nationalDigits: 9,
    currency: 'RWF',
    decimalsInAmount: 'NONE',
    minAmount: '100',
    maxAmount: '5000000',
  },
  {
    provider: 'AIRTEL_RWA',
    country: 'RWA',
    prefix: '250',
    ranges: ['72', '73'],
    nationalDigits: 9,
    currency: 'RWF',
    decimalsInAmount: 'NONE',
    minAmount: '100',
    maxAmount: '5000000',
  },
  {
    provider: 'MTN_MOMO_UGA',
    country: 'UGA',
    prefix: '256',
    ranges: ['77', '78', '76'],
    nationalDigits: 9,
    currency: 'UGX',
    decimalsInAmount: 'NONE',
    minAmount: '500',
    maxAmount: '5000000',
  },
  {
    provider: 'AIRTEL_OAPI_UGA',
    country: 'UGA',
    prefix: '256',
    ranges: ['70', '75', '74'],
    nationalDigits: 9,
    currency: 'UGX',
    decimalsInAmount: 'NONE',
    minAmount: '500',
    maxAmount: '5000000',
  },
  {
    provider: 'MPESA_KEN',
    country: 'KEN',
    prefix: '254',
    ranges: ['7', '11'],
    nationalDigits: 9,
    currency: 'KES',
    decimalsInAmount: 'NONE',
    minAmount: '1',
    maxAmount: '250000',
  },
  {
    provider: 'MTN_MOMO_GHA',
    country: 'GHA',
    prefix: '233',
    ranges: ['24', '54', '55', '59'],
    nationalDigits: 9,
    currency: 'GHS',
    decimalsInAmount: 'TWO_PLACES',
    minAmount: '1',
    maxAmount: '10000',
  },
  {
    provider: 'MTN_MOMO_CMR',
    country: 'CMR',
    prefix: '237',
    ranges: ['67', '65'],
    nationalDigits: 9,
    currency: 'XAF',
    decimalsInAmount: 'NONE',
    minAmount: '100',
    maxAmount: '1000000',
  },
];

/** A payout's course in the sandbox, by the receiver number's last three digits. */
export type PayoutCourse =
  | { readonly kind: 'completed' }
  | { readonly kind: 'failed'; readonly failureCode: string; readonly failureMessage: string }
  /** Never reaches a final state and never calls back ("stuck in SUBMITTED"; v2 reports it PROCESSING). */
  | { readonly kind: 'stuck' };

/** The published payout test suffixes. Any other number of a served provider completes. */
export const PAYOUT_SUFFIXES: Readonly<Record<string, PayoutCourse>> = {
  '789': { kind: 'completed' },
  '089': {
    kind: 'failed',
    failureCode: 'RECIPIENT_NOT_FOUND',
    failureMessage: 'The recipient phone number is not registered for mobile money with the provider.',
  },
  '119': { kind: 'failed', failureCode: 'UNSPECIFIED_FAILURE', failureMessage: 'The provider failed the payout without giving a reason.' },
  '129': { kind: 'stuck' },
};

export function courseOf(msisdn: string): PayoutCourse {
  return PAYOUT_SUFFIXES[msisdn.slice(-3)] ?? { kind: 'completed' };
}

/** The provider a number belongs to (predict-provider), or undefined. */
export function providerOfNumber(msisdn: string): StandInProvider | undefined {
  return PROVIDERS.find(
    (entry) =>
      msisdn.startsWith(entry.prefix) &&
      msisdn.length === entry.prefix.length + entry.nationalDigits &&
      entry.ranges.some((range) => msisdn.startsWith(entry.prefix + range)),
  );
}

/** Published sandbox numbers of MTN Zambia, by outcome (E.164). */
export const ZMB_NUMBERS = {
  completed: '+260763456789',
  recipientNotFound: '+260763456089',
  unspecifiedFailure: '+260763456119',
  stuck: '+260763456129',
  /** An Airtel Zambia number: valid, but not MTN's. */
  otherProvider: '+260973456789',
} as const;
