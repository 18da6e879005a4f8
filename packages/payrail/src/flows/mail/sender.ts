// Sends the outbox over SMTP (run by the worker). Due mails are claimed in
// batches with a lease, so worker processes sharing a PostgreSQL store never
// send one mail at the same time; the outcome is recorded only while the
// lease holds. A failed attempt is retried with a growing delay, up to
// MAIL_ATTEMPTS_MAX. A crash after the server accepted a mail but before
// "sent" was recorded sends it again once the lease ends, with the same
// Message-ID, so a receiving system can tell it is the same mail.
import type { Logger } from 'pino';
import type { Clock } from '../../domain/clock.ts';
import { type MailTransport, smtpTransport } from '../../providers/mail-transport.ts';
import type { Db } from '../../store/db.ts';
import { claimDueMail, type MailRow } from '../../store/mail-outbox.ts';
import { recordMailFailure, recordMailSent } from '../../store/mail/sending.ts';

export const MAIL_BATCH_MAX = 10;
/** Longer than a batch can take with every send running into its time limits. */
export const MAIL_LEASE_MS = 10 * 60_000;
export const MAIL_ATTEMPTS_MAX = 8;
const RETRY_DELAY_MS_MIN = 30_000;
const RETRY_DELAY_MS_MAX = 60 * 60_000;
const ERROR_TEXT_MAX = 300;

export interface MailSenderDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly log: Logger;
}

/** The delay before attempt `attempts + 1`, or null when the mail is given up. */
export function retryDelayMs(attempts: number): number | null {
  if (attempts >= MAIL_ATTEMPTS_MAX) return null;
  return Math.min(RETRY_DELAY_MS_MAX, RETRY_DELAY_MS_MIN * 2 ** (attempts - 1));
}

function messageIdOf(mail: MailRow, from: string): string {
  const domain = /@([^\s<>@]+)>?$/.exec(from)?.[1] ?? 'payrail.invalid';
  return `<outbox-${mail.id}-${mail.created_at_ms}@${domain}>`;
}

export class MailSender {
  constructor(
    private readonly deps: MailSenderDeps,
    private readonly transport: MailTransport,
    private readonly from: string,
  ) {}

  /** Sends one batch of due mail; returns how many mails were tried. */
  async runOnce(): Promise<number> {
    const nowMs = this.deps.clock.nowMs();
    const leaseUntilMs = nowMs + MAIL_LEASE_MS;
    const batch = await claimDueMail(this.deps.db, nowMs, leaseUntilMs, MAIL_BATCH_MAX);
    for (const mail of batch) await this.sendOne(mail, leaseUntilMs);
    return batch.length;
  }

  private async sendOne(mail: MailRow, leaseUntilMs: number): Promise<void> {
    try {
      await this.transport.send({
        to: mail.to_address,
        subject: mail.subject,
        text: mail.text_body,
        html: mail.html_body,
        messageId: messageIdOf(mail, this.from),
      });
    } catch (error) {
      const attempts = mail.attempts + 1;
      const delay = retryDelayMs(attempts);
      const text = (error instanceof Error ? error.message : String(error)).slice(0, ERROR_TEXT_MAX);
      this.deps.log.warn({ mailId: mail.id, attempts, err: text }, delay === null ? 'mail given up' : 'mail not sent; will retry');
      await recordMailFailure(this.deps.db, {
        id: mail.id,
        leaseUntilMs,
        error: text,
        nextAttemptAtMs: delay === null ? null : this.deps.clock.nowMs() + delay,
      });
      return;
    }
    const recorded = await recordMailSent(this.deps.db, mail.id, leaseUntilMs, this.deps.clock.nowMs());
    if (!recorded) this.deps.log.warn({ mailId: mail.id }, 'mail sent after its lease ended');
    else this.deps.log.info({ mailId: mail.id, kind: mail.kind }, 'mail sent');
  }

  close(): void {
    this.transport.close();
  }
}

/** The sender of a configuration, or null without PAYRAIL_SMTP_URL (mail then stays in the outbox). */
export function mailSenderFor(deps: MailSenderDeps & { config: { smtpUrl: string | null; mailFrom: string } }): MailSender | null {
  if (deps.config.smtpUrl === null) return null;
  return new MailSender(deps, smtpTransport(deps.config.smtpUrl, deps.config.mailFrom), deps.config.mailFrom);
}
