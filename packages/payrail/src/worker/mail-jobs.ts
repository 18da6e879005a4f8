// The worker job that sends the mail outbox over SMTP. Without
// PAYRAIL_SMTP_URL it does nothing: mail stays in the outbox, shown in the
// panel and by `payrail mail list`.
import { mailSenderFor } from '../flows/mail/sender.ts';
import type { Service } from '../service.ts';
import type { Job } from './worker.ts';

export function mailSendJob(service: Service): Job {
  const sender = mailSenderFor(service);
  return {
    name: 'mail.send',
    runOnce: () => (sender === null ? Promise.resolve(0) : sender.runOnce()),
  };
}
