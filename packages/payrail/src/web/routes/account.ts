// The signed-in user's own account: setting up (or removing) two-factor
// sign-in, and re-authentication, which actions that create or rotate
// credentials ask for when the session's last password check is older than
// five minutes (PCI DSS 8.2.8 and 8.6: a session left open does not let a
// passer-by issue keys).
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AttemptOutcome } from '../../flows/panel/checked-attempt.ts';
import { enrolTotp, reauthenticate, removeTotp } from '../../flows/panel/second-factor.ts';
import { recentlyAuthenticated } from '../../flows/panel/sessions.ts';
import { isTotpSecret, newTotpSecret, totpUri } from '../../flows/panel/totp.ts';
import type { Service } from '../../service.ts';
import type { Html } from '../html.ts';
import { type CookieNames, context, formField, queryField, sendPage, userOf } from '../request.ts';
import { notice } from '../views/components.ts';
import { loginMessage } from '../views/login.ts';
import { enrolBody, reauthBody, recoveryCodesBody } from '../views/two-factor.ts';

export const TWO_FACTOR_PATH = '/dashboard/account/two-factor';
/** Where re-authentication may send the user back to: panel pages only, never another site. */
const NEXT_PATTERN = /^\/dashboard\/[a-z0-9/_-]{0,100}$/;
const DEFAULT_NEXT = '/dashboard';

function nextOf(text: string): string {
  return NEXT_PATTERN.test(text) ? text : DEFAULT_NEXT;
}

/** The refusal of a failed check as a notice and a status. */
function refusalOf(outcome: Exclude<AttemptOutcome<unknown>, { ok: true }>): { message: Html; status: number } {
  return outcome.reason === 'locked'
    ? { message: loginMessage('locked', outcome.lockedForMs), status: 429 }
    : { message: loginMessage('wrong_password'), status: 401 };
}

/**
 * Shows the re-authentication form in place of an action that needs a fresh
 * password check, or returns null when the session has one. Routes call it
 * first: `const ask = requireRecentAuth(...); if (ask !== null) return ask;`.
 */
export function requireRecentAuth(service: Service, request: FastifyRequest, reply: FastifyReply, next: string): FastifyReply | null {
  const user = userOf(request);
  if (recentlyAuthenticated(service, user)) return null;
  const body = reauthBody({ csrf: user.csrfToken, next: nextOf(next), withCode: user.totpEnrolled, message: notice('info', 'Confirm it is you to continue.') });
  return sendPage(reply, context(service, request), 'Confirm it is you', body, 403);
}

export function accountRoutes(service: Service, names: CookieNames): FastifyPluginAsync {
  function proofOf(request: FastifyRequest) {
    return {
      token: request.cookies[names.session] ?? '',
      user: userOf(request),
      password: formField(request, 'password'),
      code: formField(request, 'code'),
      currentCode: formField(request, 'current_code'),
      address: request.ip,
    };
  }

  function renderEnrol(request: FastifyRequest, reply: FastifyReply, secret: string | null, message: Html | null, status: number) {
    const user = userOf(request);
    const fresh = secret === null ? newTotpSecret(user.email) : { secret, uri: totpUri(secret, user.email) };
    const body = enrolBody({
      csrf: user.csrfToken,
      email: user.email,
      secret: fresh.secret,
      uri: fresh.uri,
      required: user.mustEnrolTotp,
      enrolledAtMs: user.totpEnrolledAtMs,
      canRemove: user.totpEnrolled && user.role !== 'operator',
      message,
    });
    return sendPage(reply, context(service, request), 'Two-factor sign-in', body, status);
  }

  return async (app) => {
    app.get('/account/two-factor', async (request, reply) => {
      const message = queryField(request, 'notice') === 'totp_removed' ? notice('success', 'Two-factor sign-in is off for your account.') : null;
      return renderEnrol(request, reply, null, message, 200);
    });

    app.post('/account/two-factor', async (request, reply) => {
      const secret = formField(request, 'secret');
      if (!isTotpSecret(secret)) return renderEnrol(request, reply, null, notice('error', 'The form was changed; scan the new code.'), 400);
      const outcome = await enrolTotp(service, { ...proofOf(request), secret });
      if (!outcome.ok) {
        const { message, status } = refusalOf(outcome);
        return renderEnrol(request, reply, secret, message, status);
      }
      return sendPage(reply, context(service, request), 'Recovery codes', recoveryCodesBody(outcome.value.recoveryCodes));
    });

    app.post('/account/two-factor/remove', async (request, reply) => {
      const outcome = await removeTotp(service, proofOf(request));
      if (!outcome.ok) {
        const { message, status } = refusalOf(outcome);
        return renderEnrol(request, reply, null, message, status);
      }
      return reply.redirect(`${TWO_FACTOR_PATH}?notice=totp_removed`, 303);
    });

    app.get('/reauth', async (request, reply) => {
      const user = userOf(request);
      const body = reauthBody({ csrf: user.csrfToken, next: nextOf(queryField(request, 'next')), withCode: user.totpEnrolled, message: null });
      return sendPage(reply, context(service, request), 'Confirm it is you', body);
    });

    app.post('/reauth', async (request, reply) => {
      const user = userOf(request);
      const next = nextOf(formField(request, 'next'));
      const outcome = await reauthenticate(service, proofOf(request));
      if (!outcome.ok) {
        const { message, status } = refusalOf(outcome);
        return sendPage(
          reply,
          context(service, request),
          'Confirm it is you',
          reauthBody({ csrf: user.csrfToken, next, withCode: user.totpEnrolled, message }),
          status,
        );
      }
      return reply.redirect(`${next}?notice=reauthed`, 303);
    });
  };
}
