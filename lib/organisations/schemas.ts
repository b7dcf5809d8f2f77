import { z } from "zod";
import { oneLineText } from "@/lib/text-shapes";
import { ORGANISATION_ROLES } from "./roles";

/** Requests and responses of /api/orgs, /api/invites and /api/account (the dashboard infers its types from these). */
const name = oneLineText(80);
const slug = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9](?:[a-z0-9-]{1,38}[a-z0-9])$/, "must be 3 to 40 letters, digits or hyphens, not starting or ending with a hyphen");
const cap = z.number().int("must be a whole number of credits").nonnegative("must be 0 or more").max(1_000_000_000).nullable().optional();

export const createOrganisationBody = z.object({
  name,
  slug: slug.optional().meta({ description: "unique; default: made from the name" }),
});
/** A model rule: the model ids allowed (GET /v1/models lists them); empty: no rule. */
const allowedModels = z
  .array(z.string().trim().min(1).max(100), { error: "must be a list of model ids" })
  .max(200, "must list at most 200 models")
  .optional();
export const updateOrganisationBody = z
  .object({
    name: name.optional(),
    slug: slug.optional(),
    allowedModels: allowedModels.meta({ description: "the models members may use on the wallet; [] allows every offered model" }),
    dailyBudget: cap.meta({ description: "credits the whole organisation may spend per UTC day, besides its balance; null: no budget" }),
    monthlyBudget: cap.meta({ description: "credits the whole organisation may spend per calendar month (UTC); null: no budget" }),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), {
    message: "give name, slug, allowedModels, dailyBudget or monthlyBudget",
  });
export const updateMemberBody = z
  .object({
    role: z.enum(["admin", "member"], { error: "must be admin or member (ownership moves with POST /api/orgs/{id}/transfer)" }).optional(),
    dailyCap: cap.meta({ description: "credits the member may spend per UTC day; null: no cap" }),
    monthlyCap: cap.meta({ description: "credits the member may spend per calendar month (UTC); null: no cap" }),
    allowedModels: allowedModels.meta({
      description: "the models this member may use, within the organisation's; [] for no narrower rule",
    }),
  })
  .refine((b) => b.role !== undefined || b.dailyCap !== undefined || b.monthlyCap !== undefined || b.allowedModels !== undefined, {
    message: "give role, dailyCap, monthlyCap or allowedModels",
  });
export const transferBody = z.object({ userId: z.uuid({ error: "must be a member's user id" }) });
export const createInviteBody = z.object({
  email: z.email({ error: "must be an email address" }).max(320),
  role: z.enum(["admin", "member"], { error: "must be admin or member" }).default("member"),
});
export const acceptInviteBody = z.object({
  token: z.string({ error: "is required" }).min(10, "is not an invitation token").max(200, "is not an invitation token"),
});
export const activeAccountBody = z.object({
  accountId: z
    .string()
    .max(100)
    .nullable()
    .meta({ description: "an organisation's id, or null (or your own user id) for your personal account" }),
});

const role = z.enum(ORGANISATION_ROLES);
export const organisationView = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  role,
  allowedModels: z.array(z.string()).meta({ description: "the models members may use on the wallet; []: every offered model" }),
  dailyBudget: z.number().nullable().meta({ description: "credits the organisation may spend per UTC day; null: no budget" }),
  monthlyBudget: z.number().nullable().meta({ description: "credits the organisation may spend per calendar month; null: no budget" }),
  createdAt: z.string(),
});
export const memberCaps = z.object({
  dailyCap: z.number().nullable(),
  monthlyCap: z.number().nullable(),
  spentToday: z.number().meta({ description: "credits charged (and reserved) today, UTC" }),
  spentThisMonth: z.number(),
  allowedModels: z
    .array(z.string())
    .meta({ description: "the models this member may use, within the organisation's; []: no narrower rule" }),
});
export const walletView = z.object({
  tier: z.string(),
  monthlyAllocation: z.number(),
  subscriptionCredits: z.number(),
  bonusCredits: z.number(),
  totalUsable: z.number(),
  resetAt: z.string().nullable(),
  spentToday: z.number().meta({ description: "credits the organisation's charges took today, UTC (its daily budget's window)" }),
  spentThisMonth: z.number().meta({ description: "credits they took this calendar month (its monthly budget's window)" }),
});
export const organisationResponse = z.object({ organisation: organisationView });
export const organisationDetailResponse = z.object({
  organisation: organisationView,
  wallet: walletView,
  you: memberCaps.extend({ userId: z.string(), role }),
});
export const organisationsResponse = z.object({ organisations: z.array(organisationView) });
export const memberView = z.object({
  userId: z.string(),
  email: z.string().nullable(),
  name: z.string().nullable(),
  role,
  joinedAt: z.string(),
  caps: memberCaps
    .nullable()
    .meta({ description: "the member's caps and spend: shown to the owner and admins, and to the member themselves" }),
});
export const membersResponse = z.object({ members: z.array(memberView) });
export const memberResponse = z.object({ member: memberView });
export const inviteView = z.object({
  id: z.string(),
  email: z.string(),
  role: z.string(),
  status: z.enum(["pending", "accepted", "revoked", "expired"]),
  expiresAt: z.string(),
  createdAt: z.string(),
});
export const invitesResponse = z.object({ invites: z.array(inviteView) });
export const inviteResponse = z.object({ invite: inviteView });
export const activeAccountResponse = z.object({
  account: z.object({ id: z.string(), kind: z.enum(["person", "organisation"]), name: z.string().nullable(), role }),
});
export const usageRow = z.object({ credits: z.number(), calls: z.number(), costUsd: z.number() });
export const organisationUsageResponse = z.object({
  from: z.string(),
  to: z.string(),
  scope: z
    .enum(["organisation", "member"])
    .meta({ description: "organisation: every member's spend (owner and admins); member: your own" }),
  total: usageRow,
  byMember: z.array(usageRow.extend({ userId: z.string(), email: z.string().nullable() })),
  byKey: z.array(usageRow.extend({ keyId: z.string().nullable(), name: z.string().nullable() })),
  byModel: z.array(usageRow.extend({ model: z.string().nullable() })),
});

export type OrganisationView = z.infer<typeof organisationView>;
export type MemberView = z.infer<typeof memberView>;
export type InviteView = z.infer<typeof inviteView>;

/** DELETE /api/orgs/{id}. */
export const deleteOrganisationBody = z.strictObject({
  confirm: z.string({ error: "required: the organisation's slug, typed to confirm" }).max(200).meta({
    description: "the organisation's slug, typed to confirm",
  }),
});
export const organisationDeletedResponse = z.object({
  deleted: z.literal(true),
  id: z.string(),
  closedAt: z.string(),
  membersDetached: z.number(),
  keysRevoked: z.number(),
  invitesVoided: z.number(),
});

/** GET /api/orgs/{id}/audit and the operator's GET /api/admin/organisations/{id}/audit. */
export const auditQuery = z.object({
  limit: z.coerce
    .number({ error: "must be a number" })
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(500, "must be at most 500")
    .default(100),
  cursor: z.string().max(200).optional().meta({ description: "the previous page's nextCursor" }),
  action: z
    .string()
    .max(60)
    .optional()
    .meta({ description: "one action (member.updated) or a family (member, key, invite, wallet, organisation, ownership)" }),
  from: z.string().max(40).optional().meta({ description: "ISO 8601, inclusive" }),
  to: z.string().max(40).optional().meta({ description: "ISO 8601, exclusive" }),
  format: z.enum(["json", "csv"], { error: "must be json or csv" }).default("json"),
});
export const auditResponse = z.object({
  events: z.array(
    z.object({
      id: z.string(),
      createdAt: z.string(),
      action: z.string().meta({ description: "e.g. member.updated, key.revoked, invite.sent, wallet.purchased" }),
      targetType: z.string(),
      targetId: z.string().nullable(),
      actor: z
        .object({ id: z.string().nullable(), email: z.string().nullable() })
        .nullable()
        .meta({ description: "who made the change; null: the site (a payment, the operator, the system)" }),
      details: z.record(z.string(), z.unknown()).meta({ description: "what changed: { field: { from, to } }, amounts, names" }),
    }),
  ),
  nextCursor: z.string().nullable(),
});
