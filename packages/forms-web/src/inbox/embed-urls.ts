// The runtime tag and the hosted page's link of a form (docs/forms-web.md, "Embedding a form"),
// from the form's public definition URL, so the server's public base URL is the one used.

export function runtimeSnippet(embedUrl: string): string {
  return `<script async src="${new URL(embedUrl).origin}/runtime.js" data-form="${embedUrl}"></script>`;
}

export function hostedLink(embedUrl: string, org: string, form: string): string {
  return `${new URL(embedUrl).origin}/f/${encodeURIComponent(org)}/${encodeURIComponent(form)}`;
}
