// What the CLI needs of the store beyond createService (runtime.ts): where
// the configured store is, for naming it in every error, and a read-only
// opening for the commands that only read. The CLI never imports store/
// itself (.dependency-cruiser.cjs, cli-calls-flows); this is its one door.
export { storeLocation } from './store/location.ts';
export { openReadOnlyDb, StoreUnavailableError } from './store/read-only.ts';
