// Payrail as a library, for embedding it or driving it from a test: load the
// configuration, start the service in-process (serve), or assemble a service
// and build its HTTP app. Most users run the `payrail` command instead
// (bin/payrail.js: `npx payrail serve`).
export { type Config, ConfigError, loadConfig } from './config.ts';
export { main } from './cli/main.ts';
export { type App, buildApp } from './http/app.ts';
export { serve } from './http/server.ts';
export { createService } from './runtime.ts';
export type { Service } from './service.ts';
export { PAYRAIL_VERSION } from './version.ts';
