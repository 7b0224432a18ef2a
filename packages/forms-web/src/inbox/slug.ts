/** An id made from a name, for form ids and organisation slugs: "Contact us!" → "contact-us". */
export function idFromName(name: string, max = 64): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, max)
    .replace(/-+$/, '');
}
