// The page shown for errors inside the panel: what went wrong in words, and
// where to go next. Internal details never reach it.
import { html, type Html } from '../html.ts';
import { notice } from './components.ts';

export function errorBody(message: string, signedIn: boolean): Html {
  return html`${notice('error', message)}
  <p><a class="button" href="${signedIn ? '/dashboard' : '/dashboard/login'}">${signedIn ? 'Back to the dashboard' : 'Sign in'}</a></p>`;
}
