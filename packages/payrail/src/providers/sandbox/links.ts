// Addresses of the public sandbox pages: where a receiver completes KYC and
// where they accept a payment invitation.
import { e164Digits } from '../../domain/phone.ts';

export function sandboxKycUrl(publicUrl: string, phoneE164: string): string {
  return `${publicUrl}/sandbox/kyc/${e164Digits(phoneE164)}`;
}

export function sandboxInvitationUrl(publicUrl: string, phoneE164: string): string {
  return `${publicUrl}/sandbox/invitations/${e164Digits(phoneE164)}`;
}
