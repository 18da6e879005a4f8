// The sandbox receiver catalogue (docs/api-decisions.md section 6): the last
// four digits of a receiver's number choose how the simulated network and KYC
// provider treat it. Receivers whose state can change (KYC completed,
// invitation accepted) keep that change where every process of the
// deployment sees it: a ReceiverStates port the service hands the simulators
// (a real network keeps such state in its own systems; the simulators get no
// database).

export type Scenario = 'kyc_blocked' | 'kyc_limited' | 'unregistered' | 'network_error' | 'slow' | 'flaky' | 'normal';

const SCENARIO_BY_LAST_FOUR: Readonly<Record<string, Scenario>> = {
  '0001': 'kyc_blocked',
  '0002': 'kyc_limited',
  '0003': 'unregistered',
  '0004': 'network_error',
  '0005': 'slow',
  '0006': 'flaky',
};

export interface SandboxReceiver {
  readonly registered: boolean;
  readonly kycVerified: boolean;
  readonly moneyLimitCents: number;
}

/** Where the simulators keep receivers whose state changed (shared by every process on one store). */
export interface ReceiverStates {
  read(phoneE164: string): Promise<SandboxReceiver | null>;
  /** Records the receiver as registered and verified with this limit. */
  saveVerified(phoneE164: string, moneyLimitCents: number, nowMs: number): Promise<void>;
}

/** What a fully verified receiver may receive per transfer. */
export const VERIFIED_LIMIT_CENTS = 300_000;
const VERIFIED: SandboxReceiver = { registered: true, kycVerified: true, moneyLimitCents: VERIFIED_LIMIT_CENTS };

const DEFAULTS: Readonly<Record<Scenario, SandboxReceiver>> = {
  kyc_blocked: { registered: true, kycVerified: false, moneyLimitCents: 0 },
  kyc_limited: { registered: true, kycVerified: false, moneyLimitCents: 10_000 },
  unregistered: { registered: false, kycVerified: false, moneyLimitCents: 0 },
  network_error: VERIFIED,
  slow: VERIFIED,
  flaky: VERIFIED,
  normal: VERIFIED,
};

export function scenarioOf(phoneE164: string): Scenario {
  return SCENARIO_BY_LAST_FOUR[phoneE164.slice(-4)] ?? 'normal';
}

/** Only these scenarios start below "registered and verified", so only they can change. */
function canChange(scenario: Scenario): boolean {
  return scenario === 'kyc_blocked' || scenario === 'kyc_limited' || scenario === 'unregistered';
}

/** The catalogue plus the changes receivers made; shared by the sandbox network and KYC provider. */
export class SandboxReceivers {
  constructor(private readonly states: ReceiverStates) {}

  /** Receivers that start verified never change, so the states are read only for the three that can. */
  async read(phoneE164: string): Promise<SandboxReceiver> {
    const scenario = scenarioOf(phoneE164);
    if (!canChange(scenario)) return DEFAULTS[scenario];
    return (await this.states.read(phoneE164)) ?? DEFAULTS[scenario];
  }

  /** Completing verification at kyc_url: a registered receiver becomes verified. */
  async completeKyc(phoneE164: string, nowMs: number): Promise<'verified' | 'not_registered'> {
    const current = await this.read(phoneE164);
    if (!current.registered) return 'not_registered';
    if (!current.kycVerified) await this.states.saveVerified(phoneE164, VERIFIED_LIMIT_CENTS, nowMs);
    return 'verified';
  }

  /** Accepting a payment invitation registers the receiver as verified; for one already on the network it changes nothing. */
  async acceptInvitation(phoneE164: string, nowMs: number): Promise<'registered' | 'already_registered'> {
    const current = await this.read(phoneE164);
    if (current.registered) return 'already_registered';
    await this.states.saveVerified(phoneE164, VERIFIED_LIMIT_CENTS, nowMs);
    return 'registered';
  }
}

/** Receiver states kept in this process only: for a simulator used without a shared store (tests, tools). */
export function memoryReceiverStates(): ReceiverStates {
  const states = new Map<string, SandboxReceiver>();
  return {
    read: async (phoneE164) => states.get(phoneE164) ?? null,
    saveVerified: async (phoneE164, moneyLimitCents) => {
      states.set(phoneE164, { registered: true, kycVerified: true, moneyLimitCents });
    },
  };
}
