// Sending one mail over SMTP with nodemailer (PAYRAIL_SMTP_URL). A connector:
// it gets its URL and sender, never the store. Every step has a time limit,
// so a silent mail server costs a bounded wait, then a retry.
import nodemailer from 'nodemailer';

export interface MailMessage {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  /** Stable per outbox row, so a mail sent again after a crash can be recognised as the same one. */
  readonly messageId: string;
}

export interface MailTransport {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

const CONNECT_TIMEOUT_MS = 10_000;
const GREETING_TIMEOUT_MS = 10_000;
const SOCKET_TIMEOUT_MS = 30_000;

export function smtpTransport(url: string, from: string): MailTransport {
  const transport = nodemailer.createTransport({
    url,
    connectionTimeout: CONNECT_TIMEOUT_MS,
    greetingTimeout: GREETING_TIMEOUT_MS,
    socketTimeout: SOCKET_TIMEOUT_MS,
    // Nothing about a message (its addresses or content) goes to the log.
    logger: false,
  } as Parameters<typeof nodemailer.createTransport>[0]);
  return {
    async send(message) {
      await transport.sendMail({ from, to: message.to, subject: message.subject, text: message.text, html: message.html, messageId: message.messageId });
    },
    close() {
      transport.close();
    },
  };
}
