// The vocabulary of the audit trail (PCI DSS 10.2): who did what, to what,
// from where, when, and how it ended. Pure: the flows record events, the
// store appends them, the panel and the CLI read them back. Every action
// name an event may carry is listed here, so a filter can only ask for a
// real one and a new action is one line.

/** Who acted: a panel user, an API credential, the command line, Payrail itself, or someone not (yet) identified. */
export type AuditActorKind = 'user' | 'credential' | 'cli' | 'system' | 'anonymous';

export interface AuditActor {
  readonly kind: AuditActorKind;
  /** User id, credential id (the public part of a key, never its secret), or the OS user for the CLI. */
  readonly id: string | null;
  /** A readable name: the user's e-mail, the e-mail typed at a failed sign-in. */
  readonly label: string | null;
  /** The client's IP address, for requests; null for the CLI and Payrail itself. */
  readonly address: string | null;
}

export const SYSTEM_ACTOR: AuditActor = { kind: 'system', id: null, label: null, address: null };

export const AUDIT_OUTCOMES = ['success', 'failure', 'denied'] as const;
/** success: done; failure: refused for a reason of the request (bad input, not found); denied: refused for lack of authority (wrong password, lock). */
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

export const AUDIT_ACTIONS = [
  // Panel accounts
  'panel.sign_in',
  'panel.sign_in_code',
  'panel.sign_out',
  'panel.reauth',
  'panel.totp_enrol',
  'panel.totp_disable',
  // User administration
  'user.create',
  'user.disable',
  'user.enable',
  'user.reset_password',
  'user.end_sessions',
  'user.reset_totp',
  'user.password_reset_request',
  'user.invite',
  'user.password_reset',
  // A merchant's team, managed by its admins in the panel (flows/panel/team.ts)
  'user.remove',
  'user.role_change',
  'user.invitation_revoke',
  // Operator actions
  'merchant.create',
  'merchant.fund',
  'merchant.overdraft',
  'merchant.link_required',
  'merchant.surcharge',
  'merchant.reference_cards',
  'transfer.link',
  'transfer.cancel',
  // Reversals of completed payouts (flows/transfers/reversals.ts)
  'transfer.reversal_report',
  'transfer.reversal_confirm',
  'transfer.reversal_reject',
  // Reconciliation with the card processor (flows/operations/processor-reconciliation.ts)
  'reconciliation.run',
  'reconciliation.difference_found',
  'reconciliation.resolve',
  // Self-service sign-up and onboarding by e-mail
  'signup.request',
  'signup.confirm',
  'signup.approve',
  'signup.reject',
  'merchant.onboard',
  'credentials.reveal',
  // Credentials
  'source.create',
  'source.rotate',
  'source.revoke',
  'source.origin_add',
  'source.origin_remove',
  'source.dialect',
  'transfer_key.rotate',
  // Webhook endpoints (API, panel and CLI)
  'webhook.endpoint_create',
  'webhook.endpoint_update',
  'webhook.endpoint_delete',
  'webhook.secret_rotate',
  // Money actions taken in the panel
  'charge.capture',
  'charge.void',
  'charge.refund',
  // Recurring schedules
  'schedule.pause',
  'schedule.resume',
  // The APIs
  'api.auth_failure',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export function isAuditAction(text: string): text is AuditAction {
  return (AUDIT_ACTIONS as readonly string[]).includes(text);
}

/** Longest detail text kept with an event: a few facts (an amount, an error code), never a body. */
export const AUDIT_DETAIL_LENGTH_MAX = 500;
/** Longest label, target or address kept; anything longer is cut, so a caller cannot flood a row. */
export const AUDIT_TEXT_LENGTH_MAX = 254;

/** One event as the flows describe it; the actor, time and outcome are added when it is recorded. */
export interface AuditEvent {
  readonly action: AuditAction;
  /** What was acted on: a merchant, source, transfer, user or API path. */
  readonly target: string | null;
  /** The merchant concerned, when there is one. */
  readonly merchantId?: string | null;
  /** Short facts as text, e.g. "amount 250.00" or an error code. */
  readonly detail?: string | null;
}

export function clip(text: string | null | undefined, lengthMax: number): string | null {
  if (text === null || text === undefined) return null;
  return text.length > lengthMax ? text.slice(0, lengthMax) : text;
}
