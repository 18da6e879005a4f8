// The panel's stylesheet and script, read once at start from the package
// (no build step, no network) and served with a short cache lifetime.
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyPluginAsync } from 'fastify';

const ASSETS_DIR = path.join(import.meta.dirname, 'assets');
const ASSETS: Record<string, string> = { 'panel.css': 'text/css; charset=utf-8', 'panel.js': 'text/javascript; charset=utf-8' };

export function assetRoutes(): FastifyPluginAsync {
  const files = new Map(Object.entries(ASSETS).map(([name, type]) => [name, { type, body: fs.readFileSync(path.join(ASSETS_DIR, name)) }]));
  return async (app) => {
    app.get('/assets/:name', async (request, reply) => {
      const file = files.get((request.params as { name: string }).name);
      if (file === undefined) return reply.code(404).type('text/plain; charset=utf-8').send('not found');
      return reply.header('cache-control', 'public, max-age=300').type(file.type).send(file.body);
    });
  };
}
