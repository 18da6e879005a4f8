// The hosted card form: a page for an iframe on a merchant's checkout page
// (GET /hosted/card-form?token=<tokenization token>&origin=<merchant page
// origin>), its script and style, and payrail.js, which merchants include to
// mount the form and receive nonces. The form is served only for a live
// tokenization token whose source allows the page's origin
// (flows/access/source-origins.ts), else a plain error page; it may be framed only
// by that origin (CSP frame-ancestors) and posts nonces only to it.
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { escapeHtml } from '../../../domain/html-escape.ts';
import { hostedFormAccess, originDepsOf } from '../../../flows/access/source-origins.ts';
import type { Service } from '../../../service.ts';
import { verifyTokenizationToken } from '../../auth-hooks.ts';

const ASSET_DIR = path.join(import.meta.dirname, '..', '..', 'hosted');
const ASSET_CACHE_SECONDS = 300;

function readAsset(name: string): string {
  return fs.readFileSync(path.join(ASSET_DIR, name), 'utf8');
}

/** Longest token text passed on to the credential check; tokens are far shorter. */
const TOKEN_LENGTH_MAX = 200;

export { parsePageOrigin } from '../../../domain/page-origin.ts';

function securityHeaders(reply: FastifyReply): void {
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'no-referrer');
}

export function hostedFormRoutes(service: Service): FastifyPluginAsync {
  return async (app) => {
    const page = readAsset('card-form.html');
    const assets: Record<string, { body: string; type: string }> = {
      'card-form.js': { body: readAsset('card-form.js'), type: 'text/javascript; charset=utf-8' },
      'card-form.css': { body: readAsset('card-form.css'), type: 'text/css; charset=utf-8' },
      'payrail.js': { body: readAsset('payrail.js'), type: 'text/javascript; charset=utf-8' },
    };
    const deps = originDepsOf(service);

    app.get('/hosted/card-form', async (request, reply) => {
      const query = request.query as Record<string, unknown>;
      const token = typeof query.token === 'string' ? query.token.slice(0, TOKEN_LENGTH_MAX) : '';
      const access = await hostedFormAccess(deps, { origin: query.origin, verifyToken: () => verifyTokenizationToken(service, request, token) });
      securityHeaders(reply);
      reply.header('cache-control', 'no-store');
      if (!access.ok) {
        reply.header('content-security-policy', "default-src 'none'");
        return reply.code(access.status).type('text/plain; charset=utf-8').send(`Payrail card form: ${access.problem}.\n`);
      }
      const { origin } = access;
      reply.header(
        'content-security-policy',
        `default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors ${origin}`,
      );
      const html = page.replace('{{TOKEN}}', escapeHtml(token)).replace('{{ORIGIN}}', escapeHtml(origin));
      return reply.type('text/html; charset=utf-8').send(html);
    });

    app.get('/hosted/:asset', async (request, reply) => {
      const asset = assets[(request.params as { asset: string }).asset];
      if (asset === undefined) {
        return reply.code(404).type('text/plain; charset=utf-8').send('Not found\n');
      }
      securityHeaders(reply);
      reply.header('cache-control', `public, max-age=${ASSET_CACHE_SECONDS}`);
      // payrail.js runs on merchant pages; it must be loadable from any origin.
      reply.header('cross-origin-resource-policy', 'cross-origin');
      return reply.type(asset.type).send(asset.body);
    });
  };
}
