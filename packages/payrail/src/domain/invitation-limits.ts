// How many team invitations one merchant may mail: each is a mail from
// Payrail to any inbox, carrying the merchant's name, so a merchant account
// must not become a way to send Payrail-branded mail in bulk. The window
// slides: the invitations made in the last 24 hours count.

/** Invitations one merchant may mail within INVITATION_WINDOW_MS (admins of a real team need a handful a day). */
export const INVITATIONS_PER_MERCHANT_MAX = 20;
export const INVITATION_WINDOW_MS = 24 * 60 * 60_000;
