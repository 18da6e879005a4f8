// The `payrail keys` commands (docs/security.md, key rotation): add a
// card-data key, see what each key still protects, retire one nothing uses,
// and rewrap the stored keys after the key provider's own key rotated.
import type { Command } from 'commander';
import { cardKeysStatus, type KeysStatus, retireCardKey, rewrapCardKeys, rotateCardKey } from '../flows/card-keys/rotation.ts';
import type { CliHelpers } from './security-commands.ts';

function statusText(status: KeysStatus): string {
  const lines: string[] = [];
  for (const key of status.keys) {
    const flags = [
      key.state,
      key.sealing ? 'seals new data' : '',
      key.provider === 'configured'
        ? 'the configured key'
        : `wrapped by ${key.provider}${key.provider_key_version === null ? '' : ` v${key.provider_key_version}`}`,
    ]
      .filter((flag) => flag !== '')
      .join(', ');
    lines.push(`key ${key.id}  ${flags}`);
    if (key.state === 'active' && key.active_from_ms > Date.now()) lines.push(`  starts sealing at ${new Date(key.active_from_ms).toISOString()}`);
    const sealed = Object.entries(key.use.sealed).map(([column, n]) => `${column} ${n}`);
    const use = [...sealed, `fingerprints ${key.use.fingerprints}`, `PIN hashes ${key.use.pin_hashes}`].join(', ');
    if (key.state === 'active') lines.push(`  in use: ${key.use.total === 0 ? 'nothing' : use}`);
    // What a retired key still holds was sealed after it retired (or missed by the recount): nothing opens it any more.
    else if (key.use.total > 0) lines.push(`  UNREADABLE, still sealed under this retired key: ${use}`);
  }
  lines.push('re-seal job:');
  for (const [column, where] of Object.entries(status.reseal)) lines.push(`  ${column}: ${where}`);
  return lines.join('\n');
}

export function registerKeyCommands(program: Command, helpers: CliHelpers): void {
  const { withService, output, usage } = helpers;
  const keys = program.command('keys').description('rotate the card-data keys');
  keys
    .command('rotate')
    .option('--now', 'seal new data under the new key at once (only when no other Payrail process is running)')
    .description('add a card-data key; new data is sealed under it and the worker re-seals existing data')
    .action(async (options: { now?: boolean }, command: Command) => {
      const rotated = await withService((service) => rotateCardKey(service, { activateNow: options.now === true }));
      output(
        command,
        rotated,
        () =>
          `added card-data key ${rotated.key_id} (wrapped by ${rotated.provider}); it seals new data from ${new Date(rotated.active_from_ms).toISOString()}`,
      );
    });
  keys
    .command('status')
    .description('list the card-data keys and how many values each still protects')
    .action(async (_options: unknown, command: Command) => {
      const status = await withService((service) => cardKeysStatus(service));
      output(command, status, () => statusText(status));
    });
  keys
    .command('retire <id>')
    .option('--force-pins', 'drop the PINs still hashed under the key (their sources then need new PINs)')
    .description('retire a card-data key nothing uses any more; its wrapped copy is dropped from the store (not from backups)')
    .action(async (id: string, options: { forcePins?: boolean }, command: Command) => {
      if (!/^[1-9][0-9]{0,9}$/.test(id)) throw usage(`key id must be a positive whole number, got "${id.slice(0, 20)}"`);
      const retired = await withService((service) => retireCardKey(service, Number(id), { forcePins: options.forcePins === true }));
      output(command, retired, () =>
        [
          `retired card-data key ${retired.key_id}`,
          ...(retired.pins_dropped.length === 0 ? [] : [`PINs dropped (issue new ones): ${retired.pins_dropped.join(', ')}`]),
        ].join('\n'),
      );
    });
  keys
    .command('rewrap')
    .description("wrap the stored card-data keys under the key provider's newest key version (after rotating it in Vault)")
    .action(async (_options: unknown, command: Command) => {
      const done = await withService((service) => rewrapCardKeys(service));
      output(command, done, () => (done.rewrapped.length === 0 ? 'nothing to rewrap' : `rewrapped card-data keys ${done.rewrapped.join(', ')}`));
    });
}
