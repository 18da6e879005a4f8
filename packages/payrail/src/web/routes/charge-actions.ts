// Capture, void and refund of a charge from its page (docs/api-decisions.md
// section 10). A form post without `confirm=yes` only shows what would
// happen and asks; the confirmed post (with the session's CSRF token, as
// every panel post) acts through the payin flows and redirects to the
// charge's page with the outcome, so a reload never repeats an action.
import type { FastifyPluginAsync } from 'fastify';
import { parseReferenceNumber } from '../../domain/references.ts';
import { fail } from '../../errors.ts';
import { PANEL_CHARGE_ACTIONS, refuseBlockedCheckAction, runChargeAction, type PanelChargeAction } from '../../flows/panel/charge-actions.ts';
import type { Service } from '../../service.ts';
import { actorOf, context, formField, merchantOf, pathParam, sendPage, userOf } from '../request.ts';
import { confirmActionBody } from '../views/charges.ts';

/** The notice (web/request.ts) each action's success redirects to. */
const DONE: Readonly<Record<PanelChargeAction, string>> = { capture: 'captured', void: 'voided', refund: 'refunded' };

const TITLES: Readonly<Record<PanelChargeAction, string>> = { capture: 'Capture charge', void: 'Void charge', refund: 'Refund charge' };

export function chargeActionRoutes(service: Service): FastifyPluginAsync {
  return async (app) => {
    for (const action of PANEL_CHARGE_ACTIONS) {
      app.post(`/charges/:ref/${action}`, async (request, reply) => {
        const pk = parseReferenceNumber(pathParam(request, 'ref'));
        if (pk === null) fail('not_found', 'A reference number is digits only.');
        const amount = action === 'void' ? '' : formField(request, 'amount').trim();
        // A check's action its state (or the panel) rules out is refused before anything is asked.
        await refuseBlockedCheckAction(service, merchantOf(request), pk, action);
        if (formField(request, 'confirm') !== 'yes') {
          const body = confirmActionBody({ pk, action, amount, currency: 'USD', csrf: userOf(request).csrfToken });
          return sendPage(reply, context(service, request), TITLES[action], body);
        }
        const outcome = await runChargeAction(service, merchantOf(request), pk, action, amount, actorOf(request));
        // Back to the charge, whose page lists a new refund (or shows the refused one's outcome).
        const notice = outcome.refused === null ? DONE[action] : 'action_refused';
        return reply.redirect(`/dashboard/charges/${pk}?notice=${notice}`, 303);
      });
    }
  };
}
