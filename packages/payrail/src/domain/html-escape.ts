// Escaping text for HTML, in element content and in quoted attribute values
// alike. The one home of this rule: the panel's templates (web/html.ts) and
// the hosted card form's page (http/routes/hosted-form.ts) both use it.

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ESCAPES[ch]!);
}
