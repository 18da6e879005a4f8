// The hosted card form: a page for an iframe on a merchant's checkout page
// (GET /hosted/card-form?token=<tokenization token>&origin=<merchant page
// origin>), its script and style, and payrail.js, which merchants include to
// mount the form and receive nonces. The form page may be framed only by the
// origin it names (CSP frame-ancestors) and posts nonces only to it.
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { ENV_PREFIXES, parseKey } from '../../domain/credentials.ts';
import type { Service } from '../../service.ts';

const ASSET_DIR = path.join(import.meta.dirname, '..', 'hosted');
const ASSET_CACHE_SECONDS = 300;

function readAsset(name: string): string {
  return fs.readFileSync(path.join(ASSET_DIR, name), 'utf8');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** The page origin a form is opened for: a bare http(s) origin, https only in production. */
export function parsePageOrigin(text: unknown, production: boolean): string | null {
  if (typeof text !== 'string' || text.length > 200) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.origin !== text) return null;
  if (url.protocol !== 'https:' && (production || url.protocol !== 'http:')) return null;
  return url.origin;
}

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
    const production = service.config.environment === 'production';
    const tokenPrefix = `${ENV_PREFIXES[service.config.environment]}_pt_`;

    app.get('/hosted/card-form', async (request, reply) => {
      const query = request.query as Record<string, unknown>;
      const token = typeof query.token === 'string' ? query.token : '';
      const parsed = parseKey(token);
      const origin = parsePageOrigin(query.origin, production);
      securityHeaders(reply);
      reply.header('cache-control', 'no-store');
      if (parsed === null || parsed.kind !== 'tokenization_token' || !token.startsWith(tokenPrefix) || origin === null) {
        const problem = origin === null ? 'origin must be the origin of the page that shows the form' : `token must be a ${service.config.environment} tokenization token`;
        reply.header('content-security-policy', "default-src 'none'");
        return reply.code(400).type('text/plain; charset=utf-8').send(`Payrail card form: ${problem}.\n`);
      }
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
