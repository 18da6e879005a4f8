// Sources and credentials of the signed-in merchant, through the merchant
// administration flows. New secrets are rendered in the answer to the POST
// that made them and never again; that answer is marked no-store.
import type { FastifyPluginAsync } from 'fastify';
import { createSource, revokeSource, rotateSource, rotateTransferKey } from '../../flows/merchants.ts';
import type { Service } from '../../service.ts';
import { context, formField, merchantOf, noticeFromQuery, pathParam, sendPage, userOf } from '../request.ts';
import { credentialsBody, sourceSecretsBody, transferKeySecretBody, type SourceListRow } from '../views/credentials.ts';

/** A merchant has a handful of sources; the page lists at most this many. */
const SOURCES_LISTED_MAX = 200;
const SOURCE_NAME_LENGTH_MAX = 100;

export function credentialRoutes(service: Service): FastifyPluginAsync {
  const deps = { db: service.db, environment: service.config.environment, clock: service.clock };
  return async (app) => {
    app.get('/credentials', async (request, reply) => {
      const merchantId = merchantOf(request);
      const { sources, transferKey } = await service.db.read(async (tx) => ({
        sources: await tx.all<SourceListRow>(
          `SELECT s.id, s.name, s.created_at_ms, s.revoked_at_ms,
                  (SELECT c.id FROM credentials c WHERE c.source_id = s.id AND c.kind = 'source_key' AND c.revoked_at_ms IS NULL ORDER BY c.created_at_ms DESC LIMIT 1) AS key_id
           FROM sources s WHERE s.merchant_id = ? ORDER BY s.created_at_ms, s.id LIMIT ?`,
          [merchantId, SOURCES_LISTED_MAX],
        ),
        transferKey: await tx.get<{ id: string; created_at_ms: number }>(
          "SELECT id, created_at_ms FROM credentials WHERE merchant_id = ? AND kind = 'transfer_key' AND revoked_at_ms IS NULL ORDER BY created_at_ms DESC LIMIT 1",
          [merchantId],
        ),
      }));
      const body = credentialsBody({ csrf: userOf(request).csrfToken, sources, transferKey: transferKey ?? null, notice: noticeFromQuery(request) });
      return sendPage(reply, context(service, request), 'Sources and credentials', body);
    });

    app.post('/credentials/sources', async (request, reply) => {
      const name = formField(request, 'name').trim().slice(0, SOURCE_NAME_LENGTH_MAX) || 'Source';
      const created = await createSource(deps, { merchantId: merchantOf(request), name });
      return sendPage(reply, context(service, request), 'New source credentials', sourceSecretsBody(created, 'created'));
    });

    app.post('/credentials/sources/:id/rotate', async (request, reply) => {
      const rotated = await rotateSource(deps, { merchantId: merchantOf(request), sourceId: pathParam(request, 'id') });
      return sendPage(reply, context(service, request), 'New source credentials', sourceSecretsBody(rotated, 'rotated'));
    });

    app.post('/credentials/sources/:id/revoke', async (request, reply) => {
      await revokeSource(deps, { merchantId: merchantOf(request), sourceId: pathParam(request, 'id') });
      return reply.redirect('/dashboard/credentials?notice=revoked', 303);
    });

    app.post('/credentials/transfer-key/rotate', async (request, reply) => {
      const rotated = await rotateTransferKey(deps, { merchantId: merchantOf(request) });
      return sendPage(reply, context(service, request), 'New transfer API key', transferKeySecretBody(rotated.transfer_api_key));
    });
  };
}
