// The page of a one-time link that cannot be used: unknown or altered,
// already used, or expired. Nothing was made or changed.
import type { LinkProblem } from '../../domain/link-token.ts';
import { html, type Html } from '../html.ts';
import { notice } from './components.ts';

const TEXT: Record<LinkProblem, string> = {
  invalid: 'This link is not valid. Check that you copied the whole link from the mail.',
  used: 'This link was already used. Each link works one time only.',
  expired: 'This link has expired.',
};

export function linkProblemBody(problem: LinkProblem, next: { href: string; label: string }): Html {
  return html`${notice('error', `${TEXT[problem]} Nothing was changed.`)}
  <p><a class="button" href="${next.href}">${next.label}</a></p>`;
}

export const LINK_PROBLEM_STATUS: Record<LinkProblem, number> = { invalid: 404, used: 410, expired: 410 };
