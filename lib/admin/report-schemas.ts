import { z } from "zod";

/** Responses of the operator's reports: AI usage by model and user, and the AI routes with their state (docs/ADMIN.md). */

const usageFigures = {
  calls: z.number(),
  credits: z.number().meta({ description: "credits charged (after settlement)" }),
  promptTokens: z.number(),
  completionTokens: z.number(),
  costUsd: z.number().meta({ description: "what the calls cost upstream (provider list prices)" }),
  soldUsd: z.number().meta({ description: "credits x the credit's value" }),
  marginUsd: z.number().meta({ description: "soldUsd - costUsd" }),
  uncollectedCredits: z.number().meta({
    description:
      "credits a settlement could not draw (usage above the reservation with the balance at zero): never expected; a quote that was not an upper bound",
  }),
  belowCostCalls: z.number().meta({ description: "calls whose credits were worth less than their provider cost" }),
};

export const usageReportResponse = z.object({
  from: z.string(),
  to: z.string(),
  userId: z.string().nullable(),
  creditValueUsd: z.number(),
  totals: z.object({
    calls: z.number(),
    credits: z.number(),
    costUsd: z.number(),
    soldUsd: z.number(),
    marginUsd: z.number(),
    uncollectedCredits: z.number(),
    belowCostCalls: z.number(),
  }),
  byModel: z.array(z.object({ model: z.string(), ...usageFigures })),
  byUser: z.array(z.object({ userId: z.string(), email: z.string().nullable(), ...usageFigures })),
});

const routeStats = z.object({
  calls: z.number(),
  errors: z.number(),
  errorRate: z.number(),
  p50Ms: z.number().nullable(),
  p95Ms: z.number().nullable(),
  lastError: z.object({ at: z.string(), message: z.string() }).nullable(),
  windowMinutes: z.number(),
});

export const aiRoutesResponse = z.object({
  instance: z.string().meta({ description: "the host and process whose recent calls the stats describe" }),
  offline: z.boolean(),
  attempts: z.number(),
  routeTimeoutMs: z.number(),
  timeoutMs: z.number(),
  providers: z.array(z.object({ name: z.string(), type: z.string(), host: z.string().nullable() })),
  pricing: z.object({
    mode: z.enum(["flat", "metered"]),
    flatMargin: z.number().meta({ description: "AI_FLAT_MARGIN: the share of a flat price kept as a safety margin" }),
    flatLimits: z
      .array(
        z.object({
          model: z.string(),
          operation: z.string(),
          credits: z.number(),
          budgetUsd: z.number().meta({ description: "the upstream cost one call may reach at this flat price (after the margin)" }),
          maxInputTokens: z.number().optional(),
          inputUnit: z.enum(["tokens", "bytes"]).optional(),
          maxOutputTokens: z.number().optional(),
          largestImage: z.string().optional(),
          maxMinutes: z.number().optional(),
        }),
      )
      .meta({ description: "flat mode: the largest call each flat price accepts per model (empty in metered mode)" }),
  }),
  models: z.array(
    z.object({
      model: z.string(),
      kind: z.string(),
      routes: z.array(z.object({ provider: z.string(), model: z.string(), upstreamModel: z.string(), stats: routeStats })),
    }),
  ),
});
