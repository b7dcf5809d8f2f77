import { createHash, randomUUID } from "node:crypto";
import { db } from "@/lib/db/client";
import type { Prisma } from "@/lib/generated/prisma/client";

/** Every action the organisation audit log records (docs/API-NOTES.md "Organisations", audit log). */
export const ORGANISATION_AUDIT_ACTIONS = [
  "organisation.created",
  "organisation.updated",
  "organisation.deleted",
  "organisation.locked",
  "organisation.unlocked",
  "ownership.transferred",
  "invite.sent",
  "invite.withdrawn",
  "member.joined",
  "member.updated",
  "member.removed",
  "member.left",
  "key.created",
  "key.updated",
  "key.revoked",
  "wallet.adjusted",
  "wallet.purchased",
  "wallet.refunded",
  "wallet.auto_recharge_changed",
] as const;
export type OrganisationAuditAction = (typeof ORGANISATION_AUDIT_ACTIONS)[number];

export interface OrganisationEvent {
  /** The account the change is to: recorded only when it is an organisation (a person's account has no audit log). */
  accountId: string;
  /** Who made it; null: the site (a payment provider, an operator, the system). */
  actorId: string | null;
  action: OrganisationAuditAction;
  targetType: "organisation" | "member" | "invite" | "key" | "wallet";
  targetId?: string | null;
  details?: Record<string, unknown>;
  /** A fact that may be told more than once (a payment webhook delivered again): recorded once. */
  dedupeKey?: string;
}

type Client = Prisma.TransactionClient;

/**
 * Writes one audit row for a change to an organisation, in the caller's transaction when it passes
 * one (the change and its record commit together). One statement: it writes nothing when the account
 * is a person's, so callers that change any account (payments, keys) call it without asking first.
 * Its time is the statement's (clock_timestamp), so rows one transaction writes keep their order.
 */
export async function recordOrganisationEvent(tx: Client | null, event: OrganisationEvent): Promise<void> {
  const client = tx ?? (await db());
  const details = event.details ? JSON.stringify(event.details) : null;
  const id = event.dedupeKey ? `fact-${createHash("sha256").update(event.dedupeKey).digest("hex").slice(0, 32)}` : randomUUID();
  await client.$executeRaw`
    INSERT INTO organisation_audit_events (id, organisation_id, actor_id, actor_email, action, target_type, target_id, details, created_at)
    SELECT ${id}::text, o.id, ${event.actorId}::text, (SELECT email FROM users WHERE id = ${event.actorId}::text),
           ${event.action}::text, ${event.targetType}::text, ${event.targetId ?? null}::text, ${details}::jsonb, clock_timestamp()
      FROM organisations o WHERE o.id = ${event.accountId}::text
    ON CONFLICT (id) DO NOTHING`;
}
