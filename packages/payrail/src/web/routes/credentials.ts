// Sources and credentials of the signed-in merchant, through the merchant
// administration flows. New secrets are rendered in the answer to the POST
// that made them and never again; that answer is marked no-store. Creating
// or rotating credentials needs a password check from the last 5 minutes
// (account.ts) and an admin: keys move money (domain/panel-permissions.ts).
// Each source also lists the page origins its hosted card form
// may be shown on, and its wire dialect, which the merchant's admin may
// change.
import type { FastifyPluginAsync } from 'fastify';
import { issuingDeps, setSourceDialect, wireDialectOf } from '../../flows/merchants/merchants.ts';
import { createSourceAs, type PanelMember, revokeSourceAs, rotateSourceAs, rotateTransferKeyAs } from '../../flows/panel/credential-actions.ts';
import { merchantCredentials } from '../../flows/panel/merchant-views.ts';
import { addOrigin, originsBySource, removeOrigin } from '../../flows/access/source-origins.ts';
import { merchantRoleHasMoneyPower } from '../../domain/panel-permissions.ts';
import type { FastifyRequest } from 'fastify';
import type { Service } from '../../service.ts';
import { actorOf, context, formField, merchantOf, noticeFromQuery, pathParam, sendPage, userOf } from '../request.ts';
import { requireRecentAuth } from './account.ts';
import { credentialsBody, sourceSecretsBody, transferKeySecretBody } from '../views/credentials.ts';

const SOURCE_NAME_LENGTH_MAX = 100;

/** The signed-in merchant user as the credential flows check them. */
function memberOf(request: FastifyRequest): PanelMember {
  return { actor: actorOf(request), role: userOf(request).merchantRole ?? 'viewer' };
}

export function credentialRoutes(service: Service): FastifyPluginAsync {
  const deps = issuingDeps(service);
  return async (app) => {
    app.get('/credentials', async (request, reply) => {
      const { sources, transferKey } = await merchantCredentials(service, merchantOf(request));
      const origins = await originsBySource(service, merchantOf(request));
      const body = credentialsBody({
        csrf: userOf(request).csrfToken,
        sources,
        transferKey,
        origins,
        sandbox: service.config.environment === 'sandbox',
        mayChangeDialect: userOf(request).merchantRole === 'admin',
        mayIssueKeys: merchantRoleHasMoneyPower(userOf(request).merchantRole ?? 'viewer'),
        notice: noticeFromQuery(request),
      });
      return sendPage(reply, context(service, request), 'Sources and credentials', body);
    });

    app.post('/credentials/sources', async (request, reply) => {
      const ask = requireRecentAuth(service, request, reply, '/dashboard/credentials');
      if (ask !== null) return ask;
      const name = formField(request, 'name').trim().slice(0, SOURCE_NAME_LENGTH_MAX) || 'Source';
      const dialect = wireDialectOf(formField(request, 'dialect') || undefined);
      const created = await createSourceAs(deps, { merchantId: merchantOf(request), name, dialect }, memberOf(request));
      return sendPage(reply, context(service, request), 'New source credentials', sourceSecretsBody(created, 'created'));
    });

    app.post('/credentials/sources/:id/rotate', async (request, reply) => {
      const ask = requireRecentAuth(service, request, reply, '/dashboard/credentials');
      if (ask !== null) return ask;
      const rotated = await rotateSourceAs(deps, { merchantId: merchantOf(request), sourceId: pathParam(request, 'id') }, memberOf(request));
      return sendPage(reply, context(service, request), 'New source credentials', sourceSecretsBody(rotated, 'rotated'));
    });

    app.post('/credentials/sources/:id/revoke', async (request, reply) => {
      await revokeSourceAs(deps, { merchantId: merchantOf(request), sourceId: pathParam(request, 'id') }, memberOf(request));
      return reply.redirect('/dashboard/credentials?notice=revoked', 303);
    });

    // Admins only (domain/panel-permissions.ts); no fresh password check: no secret is made or shown.
    app.post('/credentials/sources/:id/dialect', async (request, reply) => {
      const dialect = wireDialectOf(formField(request, 'dialect'));
      const set = await setSourceDialect(deps, { sourceId: pathParam(request, 'id'), merchantId: merchantOf(request), dialect }, actorOf(request));
      return reply.redirect(`/dashboard/credentials?notice=${set.changed ? 'dialect_changed' : 'dialect_unchanged'}`, 303);
    });

    app.post('/credentials/transfer-key/rotate', async (request, reply) => {
      const ask = requireRecentAuth(service, request, reply, '/dashboard/credentials');
      if (ask !== null) return ask;
      const rotated = await rotateTransferKeyAs(deps, { merchantId: merchantOf(request) }, memberOf(request));
      return sendPage(reply, context(service, request), 'New transfer API key', transferKeySecretBody(rotated.transfer_api_key));
    });

    app.post('/credentials/sources/:id/origins', async (request, reply) => {
      await addOrigin(deps, { merchantId: merchantOf(request), sourceId: pathParam(request, 'id'), origin: formField(request, 'origin') }, actorOf(request));
      return reply.redirect('/dashboard/credentials?notice=origin_added', 303);
    });

    app.post('/credentials/sources/:id/origins/remove', async (request, reply) => {
      await removeOrigin(deps, { merchantId: merchantOf(request), sourceId: pathParam(request, 'id'), origin: formField(request, 'origin') }, actorOf(request));
      return reply.redirect('/dashboard/credentials?notice=origin_removed', 303);
    });
  };
}
