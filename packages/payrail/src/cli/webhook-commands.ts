// The `payrail webhook` and `payrail events` commands (docs/api-decisions.md
// section 11): an operator manages a merchant's webhook endpoints, reads and
// re-sends its events, and tails them as they happen, optionally forwarding
// each one signed to a local URL. main.ts hands in its helpers.
import type { Command } from 'commander';
import type { EventType } from '../domain/webhooks.ts';
import { eventListJson, eventOfJson, resendEvent } from '../flows/webhooks/events.ts';
import {
  changeEndpoint,
  createEndpoint,
  type EndpointView,
  endpointList,
  endpointOf,
  removeEndpoint,
  rotateEndpointSecret,
} from '../flows/webhooks/endpoints.ts';
import { forwardEvent, newTailSecret, tailEvents } from '../flows/webhooks/tail.ts';
import { cliActor } from './actor.ts';
import type { CliHelpers } from './security-commands.ts';

const typesOf = (text: string | undefined): EventType[] | undefined =>
  text === undefined
    ? undefined
    : (text
        .split(',')
        .map((type) => type.trim())
        .filter((type) => type !== '') as EventType[]);

function endpointText(e: EndpointView & { signature?: string }): string {
  return [
    `endpoint  ${e.id}`,
    `url       ${e.url}`,
    `events    ${e.events.length === 15 ? 'all' : e.events.join(', ')}`,
    `enabled   ${e.enabled ? 'yes' : `no${e.disabled_reason === null ? '' : ` (${e.disabled_reason})`}`}`,
    ...(e.signature === undefined ? [] : [`secret    ${e.signature}`, '(shown once: keep it to verify signatures)']),
  ].join('\n');
}

export function registerWebhookCommands(program: Command, helpers: CliHelpers): void {
  const { withService, output } = helpers;
  const webhook = program.command('webhook').description("manage a merchant's webhook endpoints");
  webhook
    .command('create')
    .requiredOption('--merchant <id>', 'merchant id')
    .requiredOption('--url <url>', 'where to POST events (https; the sandbox also takes http://localhost)')
    .option('--events <types>', 'comma-separated event types (default: all)')
    .description('add an endpoint; its signing secret is shown once')
    .action(async (options: { merchant: string; url: string; events?: string }, command: Command) => {
      const created = await withService((service) =>
        createEndpoint(service, options.merchant, { url: options.url, events: typesOf(options.events) }, cliActor()),
      );
      output(command, created, () => endpointText(created));
    });
  webhook
    .command('list')
    .requiredOption('--merchant <id>', 'merchant id')
    .description("list the merchant's endpoints")
    .action(async (options: { merchant: string }, command: Command) => {
      const endpoints = await withService((service) => endpointList(service, options.merchant));
      output(command, endpoints, () => (endpoints.length === 0 ? 'no webhook endpoint' : endpoints.map(endpointText).join('\n\n')));
    });
  webhook
    .command('show')
    .requiredOption('--merchant <id>', 'merchant id')
    .requiredOption('--endpoint <id>', 'endpoint id (we_...)')
    .action(async (options: { merchant: string; endpoint: string }, command: Command) => {
      const endpoint = await withService((service) => endpointOf(service, options.merchant, options.endpoint));
      output(command, endpoint, () => endpointText(endpoint));
    });
  webhook
    .command('update')
    .requiredOption('--merchant <id>', 'merchant id')
    .requiredOption('--endpoint <id>', 'endpoint id (we_...)')
    .option('--url <url>', 'new URL')
    .option('--events <types>', 'comma-separated event types ("" for all)')
    .option('--enable', 'enable (also after Payrail disabled it)')
    .option('--disable', 'disable')
    .action(async (options: { merchant: string; endpoint: string; url?: string; events?: string; enable?: boolean; disable?: boolean }, command: Command) => {
      if (options.enable === true && options.disable === true) throw helpers.usage('--enable and --disable exclude each other');
      const enabled = options.enable === true ? true : options.disable === true ? false : undefined;
      const changed = await withService((service) =>
        changeEndpoint(service, options.merchant, options.endpoint, { url: options.url, events: typesOf(options.events), enabled }, cliActor()),
      );
      output(command, changed, () => endpointText(changed));
    });
  webhook
    .command('delete')
    .requiredOption('--merchant <id>', 'merchant id')
    .requiredOption('--endpoint <id>', 'endpoint id (we_...)')
    .action(async (options: { merchant: string; endpoint: string }, command: Command) => {
      const deleted = await withService((service) => removeEndpoint(service, options.merchant, options.endpoint, cliActor()));
      output(command, deleted, () => `endpoint ${deleted.id} deleted`);
    });
  webhook
    .command('rotate')
    .requiredOption('--merchant <id>', 'merchant id')
    .requiredOption('--endpoint <id>', 'endpoint id (we_...)')
    .description('replace the signing secret (the new one is shown once)')
    .action(async (options: { merchant: string; endpoint: string }, command: Command) => {
      const rotated = await withService((service) => rotateEndpointSecret(service, options.merchant, options.endpoint, cliActor()));
      output(command, rotated, () => endpointText(rotated));
    });

  const events = program.command('events').description("a merchant's events");
  events
    .command('list')
    .requiredOption('--merchant <id>', 'merchant id')
    .option('--type <type>', 'only this event type')
    .option('--limit <n>', '1 to 100 (default 10)')
    .option('--starting-after <id>', 'the last event id of the previous page')
    .description('list events, newest first')
    .action(async (options: { merchant: string; type?: string; limit?: string; startingAfter?: string }, command: Command) => {
      const json = await withService((service) =>
        eventListJson(service, options.merchant, { type: options.type, limit: options.limit, starting_after: options.startingAfter }),
      );
      const page = JSON.parse(json) as { data: Array<{ id: string; type: string; created_at: string }>; has_more: boolean };
      output(command, page, () =>
        page.data.length === 0 ? 'no event' : [...page.data.map((e) => `${e.created_at}  ${e.id}  ${e.type}`), ...(page.has_more ? ['(more)'] : [])].join('\n'),
      );
    });
  events
    .command('show')
    .requiredOption('--merchant <id>', 'merchant id')
    .requiredOption('--event <id>', 'event id (evt_...)')
    .action(async (options: { merchant: string; event: string }, command: Command) => {
      const json = await withService((service) => eventOfJson(service, options.merchant, options.event));
      output(command, JSON.parse(json), () => JSON.stringify(JSON.parse(json), null, 2));
    });
  events
    .command('resend')
    .requiredOption('--merchant <id>', 'merchant id')
    .requiredOption('--event <id>', 'event id (evt_...)')
    .description('send an event again to every enabled endpoint subscribed to its type')
    .action(async (options: { merchant: string; event: string }, command: Command) => {
      const resent = await withService((service) => resendEvent(service, options.merchant, options.event));
      output(command, resent, () => `event ${resent.id}: ${resent.deliveries} delivery(ies) queued`);
    });
  events
    .command('tail')
    .requiredOption('--merchant <id>', 'merchant id')
    .option('--forward-to <url>', 'POST each event to this URL, signed like a webhook delivery')
    .option('--secret <whsec>', 'the signing secret for --forward-to (default: a fresh one, printed at start)')
    .option('--count <n>', 'stop after this many events')
    .description("print the merchant's events as they happen (Ctrl-C stops)")
    .action(async (options: { merchant: string; forwardTo?: string; secret?: string; count?: string }, command: Command) => {
      const count = options.count === undefined ? undefined : Number(options.count);
      if (count !== undefined && !(Number.isInteger(count) && count >= 1)) throw helpers.usage('--count must be a positive integer');
      const secret = options.secret ?? newTailSecret();
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        await withService((service) =>
          tailEvents(service, options.merchant, {
            signal: stop.signal,
            ...(count === undefined ? {} : { count }),
            ready: () =>
              helpers.stderr(
                `tailing events of ${options.merchant}${options.forwardTo === undefined ? '' : `, forwarding to ${options.forwardTo} signed with ${secret}`}\n`,
              ),
            onEvent: async (event) => {
              let forwarded = '';
              if (options.forwardTo !== undefined) {
                const answer = await forwardEvent(event, options.forwardTo, secret, service.clock.nowMs());
                forwarded = answer.statusCode === null ? `  -> ${answer.error}` : `  -> ${answer.statusCode}`;
              }
              output(command, JSON.parse(event.json), () => `${event.created_at}  ${event.id}  ${event.type}${forwarded}`);
            },
          }),
        );
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });
}
