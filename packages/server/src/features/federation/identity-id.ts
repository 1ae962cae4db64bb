import { base64url } from 'jose';
import { utf8 } from 'passlane/encoding';

/**
 * An identity's id in GET /identities and DELETE /identities/{id}: `<provider>.<subject in
 * base64url>`, so a removal can name the identity's lookup even when the list lost it (a removal
 * stopped halfway, README.md). The subject is no secret: it is in every ID token the provider issues.
 */
export function identityId(provider: string, subject: string): string {
  return `${provider}.${base64url.encode(utf8(subject))}`;
}

const ID = /^([a-z0-9][a-z0-9-]{0,31})\.([A-Za-z0-9_-]{1,400})$/;

/** The provider and subject an id names; undefined for anything that is not one. */
export function parseIdentityId(id: string): { provider: string; subject: string } | undefined {
  const match = ID.exec(id);
  if (match === null) return undefined;
  try {
    return { provider: match[1]!, subject: new TextDecoder('utf-8', { fatal: true }).decode(base64url.decode(match[2]!)) };
  } catch {
    return undefined;
  }
}
