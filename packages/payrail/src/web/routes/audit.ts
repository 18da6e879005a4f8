// The operator's audit log page (PCI DSS 10.2): events filtered by action and
// UTC days, newest first, paged by event id.
import type { FastifyPluginAsync } from 'fastify';
import { isAuditAction } from '../../domain/audit.ts';
import { DAY_MS } from '../../domain/clock.ts';
import { auditEvents } from '../../flows/operations/audit.ts';
import type { Service } from '../../service.ts';
import { html } from '../html.ts';
import { beforeCursor, context, dayStartMs, queryField, sendPage } from '../request.ts';
import { auditBody } from '../views/audit.ts';
import { notice } from '../views/components.ts';

export function auditRoutes(service: Service): FastifyPluginAsync {
  return async (app) => {
    app.get('/operator/audit', async (request, reply) => {
      const actionText = queryField(request, 'action');
      const fromText = queryField(request, 'from');
      const toText = queryField(request, 'to');
      const action = isAuditAction(actionText) ? actionText : null;
      const fromMs = dayStartMs(fromText);
      const toDayMs = dayStartMs(toText);
      const problems: string[] = [];
      if (actionText !== '' && action === null) problems.push(`unknown action "${actionText}"`);
      if (fromText !== '' && fromMs === null) problems.push('the From date is not a date');
      if (toText !== '' && toDayMs === null) problems.push('the To date is not a date');
      const { rows, nextBefore } = await auditEvents(service, {
        action,
        fromMs,
        toMs: toDayMs === null ? null : toDayMs + DAY_MS,
        beforeId: beforeCursor(request),
      });
      const input = { action: action ?? '', from: fromMs === null ? '' : fromText, to: toDayMs === null ? '' : toText };
      const body = auditBody(input, rows, nextBefore, action !== null || fromMs !== null || toDayMs !== null);
      const warning = problems.length === 0 ? html`` : notice('error', `Filter ignored: ${problems.join('; ')}.`);
      return sendPage(reply, context(service, request), 'Audit log', html`${warning}${body}`, problems.length === 0 ? 200 : 400);
    });
  };
}
