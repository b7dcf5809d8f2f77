/** The roles of an organisation's members, highest first. */
export const ORGANISATION_ROLES = ["owner", "admin", "member"] as const;
export type OrganisationRole = (typeof ORGANISATION_ROLES)[number];

/** What a route or action needs: any member, or the owner and admins. */
export type RequiredRole = "member" | "admin" | "owner";

export function roleAllows(role: OrganisationRole, needed: RequiredRole): boolean {
  if (needed === "member") return true;
  if (needed === "admin") return role === "owner" || role === "admin";
  return role === "owner";
}

/** The account a request acts for: the person themselves, or an organisation they belong to. */
export interface ActingAccount {
  /** The wallet's account id: the user's own, or the organisation's. */
  id: string;
  kind: "person" | "organisation";
  /** A person is the owner of their own account. */
  role: OrganisationRole;
  /** Acting as an organisation: the member (the signed-in person or the key's maker); null for a person. */
  memberId: string | null;
}

export function personalAccount(userId: string): ActingAccount {
  return { id: userId, kind: "person", role: "owner", memberId: null };
}
