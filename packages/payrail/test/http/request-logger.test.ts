// A request's logger is made at its first line (src/http/request-logger.ts):
// with the level above info, requests that log nothing make no child logger;
// one that logs writes the same line a child would, bound to its request id;
// at info, every request line carries it.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { Logger } from 'pino';
import { buildApp } from '../../src/http/app.ts';
import { createLogger } from '../../src/log.ts';
import { createService } from '../../src/runtime.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

/** A logger at `level` whose lines are kept, and how many child loggers were made of it. */
function capturedLogger(level: string): { log: Logger; lines: Array<Record<string, unknown>>; children: () => number } {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const log = createLogger(level, sink);
  let made = 0;
  const child = log.child.bind(log);
  log.child = ((...args: Parameters<Logger['child']>) => {
    made += 1;
    return child(...args);
  }) as Logger['child'];
  return { log, lines, children: () => made };
}

/** pino writes asynchronously to a stream destination; a turn of the loop lets the lines through. */
const flushed = () => new Promise((resolve) => setImmediate(resolve));

describe('request loggers', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp('sqlite');
  });
  after(() => t.close());

  async function appLoggingAt(level: string) {
    const captured = capturedLogger(level);
    const app = await buildApp(await createService(t.service.config, { db: t.service.db, clock: t.clock, log: captured.log }));
    return { app, ...captured };
  }

  it('above info: no child logger for requests that log nothing; a line that is written carries the request id', async () => {
    const { app, lines, children } = await appLoggingAt('warn');
    try {
      const before = children();
      for (let i = 0; i < 3; i++) assert.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
      assert.equal(children(), before, 'nobody logged, nothing was made');

      // A refused key is logged at warn, by the request's logger.
      const refused = await app.inject({
        method: 'GET',
        url: '/api/agent_balance',
        headers: { 'api-key': 'sbx_tk_0000000000000000_00000000000000000000000000000000', 'x-request-id': 'req-lazy-1' },
      });
      assert.equal(refused.statusCode, 401);
      await flushed();
      assert.equal(children(), before + 1, 'made once, at the first line');
      const line = lines.find((l) => l.reqId === 'req-lazy-1');
      assert.ok(line !== undefined, `a line with the request id among ${JSON.stringify(lines)}`);
      assert.equal(line.level, 40);
    } finally {
      await app.close();
    }
  });

  it('at info: every request line carries its request id', async () => {
    const { app, lines } = await appLoggingAt('info');
    try {
      await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'req-info-1' } });
      await flushed();
      const line = lines.find((l) => l.msg === 'request' && l.reqId === 'req-info-1');
      assert.ok(line !== undefined, `the request line among ${JSON.stringify(lines)}`);
      assert.equal(line.url, '/healthz');
    } finally {
      await app.close();
    }
  });
});
