import { userInfo } from 'node:os';

/**
 * Who `passlane users` says acted, in the audit events and the owner's mails: `cli:<os user>`.
 * A label, not a proof: whoever holds the table's credentials can write anything, and what AWS
 * itself records (CloudTrail) names the IAM principal. Not the principal from STS
 * GetCallerIdentity: that would be a network call (and a client) more before every action, for a
 * name the operator's own credentials could not make more trustworthy (cli/README.md, "Operators").
 */
export function cliOperatorId(): string {
  return `cli:${osUser()}`;
}

function osUser(): string {
  try {
    const name = userInfo().username;
    if (name !== '') return name;
  } catch {
    // No passwd entry for the uid (some containers): no name to give.
  }
  return 'unknown';
}
