import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { processState } from "@/lib/process-state";

/**
 * An organisation's model rules (docs/API-NOTES.md "Organisations"): the models its members may use
 * on its wallet, and per member a narrower list; empty lists mean no rule. Remembered per process for
 * RULES_TTL_MS (the membership bound) so a charge pays no query, forgotten here at once on a change.
 * A person's own wallet has none and never asks.
 */
const RULES_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;
interface Rules {
  organisation: string[];
  member: string[];
}
const known = processState("modelRules", () => new Map<string, { rules: Rules; until: number }>());
const keyOf = (organisationId: string, memberId: string | null) => `${organisationId}:${memberId ?? ""}`;

/** The rules of a member of the organisation, or (memberId null: a service key) the organisation's alone. */
export async function modelRulesOf(organisationId: string, memberId: string | null, nowMs = Date.now()): Promise<Rules> {
  const hit = known.get(keyOf(organisationId, memberId));
  if (hit && hit.until > nowMs) return hit.rules;
  const prisma = await db();
  const [org, member] = await Promise.all([
    prisma.organisation.findUnique({ where: { id: organisationId }, select: { allowedModels: true } }),
    memberId
      ? prisma.organisationMember.findUnique({
          where: { organisationId_userId: { organisationId, userId: memberId } },
          select: { allowedModels: true },
        })
      : null,
  ]);
  const rules = { organisation: org?.allowedModels ?? [], member: member?.allowedModels ?? [] };
  if (known.size >= MAX_ENTRIES) known.delete(known.keys().next().value as string);
  known.set(keyOf(organisationId, memberId), { rules, until: nowMs + RULES_TTL_MS });
  return rules;
}

/** Whether the rules let a model through. */
export const modelAllowed = (rules: Rules, model: string) =>
  (rules.organisation.length === 0 || rules.organisation.includes(model)) && (rules.member.length === 0 || rules.member.includes(model));

/** 403 `model_not_allowed` naming the rule a charge to an organisation's wallet breaks, before anything is reserved. */
export async function checkModelRules(organisationId: string, memberId: string | null, model: string): Promise<void> {
  const rules = await modelRulesOf(organisationId, memberId);
  if (rules.organisation.length && !rules.organisation.includes(model))
    throw new AppError(
      "forbidden",
      `This organisation allows its members the models ${rules.organisation.join(", ")}; \`${model}\` is not one of them (an admin can change the list)`,
      { param: "model", reason: "model_not_allowed" },
    );
  if (rules.member.length && !rules.member.includes(model))
    throw new AppError(
      "forbidden",
      `In this organisation you may use the models ${rules.member.join(", ")}; \`${model}\` is not one of them (an admin can change the list)`,
      { param: "model", reason: "model_not_allowed" },
    );
}

/** Called when an organisation's or a member's rules change: this process sees it on the next charge (others within RULES_TTL_MS). */
export function forgetModelRules(organisationId: string): void {
  for (const key of known.keys()) if (key.startsWith(`${organisationId}:`)) known.delete(key);
}
