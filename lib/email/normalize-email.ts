/** The one form of an email address we store and match on (users, buyers of a checkout, recipients). */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
