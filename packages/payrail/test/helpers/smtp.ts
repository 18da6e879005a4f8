// A real SMTP server on loopback (the smtp-server package) that keeps every
// mail it receives, for tests that follow the links Payrail mails. Waiting
// for a mail is event-driven and bounded, never a sleep.
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  readonly to: string[];
  /** The raw message with quoted-printable soft breaks and escapes undone, so links can be found in it. */
  readonly text: string;
  readonly messageId: string;
}

export interface TestSmtp {
  readonly url: string;
  readonly mails: ReceivedMail[];
  /** Resolves with the first received mail (past or future) matching `match`; fails after `timeoutMs`. */
  waitFor(match: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

const WAIT_TIMEOUT_MS = 30_000;

function decodeQuotedPrintable(raw: string): string {
  const latin1 = raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  return Buffer.from(latin1, 'latin1').toString('utf8');
}

/** `refuseOnceTo`: the first mail to this address is refused with 451 (try again later), to test retries. */
export async function startSmtp(options: { refuseOnceTo?: string } = {}): Promise<TestSmtp> {
  const mails: ReceivedMail[] = [];
  let toRefuse = options.refuseOnceTo ?? null;
  const waiters = new Set<() => void>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (toRefuse !== null && session.envelope.rcptTo.some((r) => r.address === toRefuse)) {
          toRefuse = null;
          const refusal = Object.assign(new Error('try again later'), { responseCode: 451 });
          callback(refusal);
          return;
        }
        const raw = Buffer.concat(chunks).toString('latin1');
        const messageId = /^Message-ID:\s*(.+)$/im.exec(raw)?.[1]?.trim() ?? '';
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address), text: decodeQuotedPrintable(raw), messageId });
        for (const wake of waiters) wake();
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    waitFor(match, timeoutMs = WAIT_TIMEOUT_MS) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = mails.find(match);
          if (found === undefined) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching mail within ${timeoutMs} ms; received: ${mails.map((m) => m.to.join(',')).join(' | ')}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The first link in a mail that starts with `prefix`. */
export function linkIn(mail: ReceivedMail, prefix: string): string {
  const escaped = prefix.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const match = new RegExp(`${escaped}[A-Za-z0-9._~/-]+`).exec(mail.text);
  if (match === null) throw new Error(`no link ${prefix} in mail:\n${mail.text}`);
  return match[0];
}
