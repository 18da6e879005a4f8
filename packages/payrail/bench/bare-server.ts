// The ceiling: a bare Fastify route that parses the same JSON body and
// answers a small JSON object, with the same framework settings and no
// logging, in its own process like the real server.
import Fastify from 'fastify';

const app = Fastify({ logger: false, bodyLimit: 64 * 1024 });
app.post('/bare', async () => ({ success: true, error: '' }));
const port = Number(process.env.PORT ?? 0);
await app.listen({ port, host: '127.0.0.1' });
const _address = app.server.address();

process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
