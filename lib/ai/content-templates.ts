import { z } from "zod";
import { AppError } from "@/lib/errors";

/**
 * The five content templates of POST /api/ai/generate-content and their `fields` (docs/API-NOTES.md
 * "AI"). Every value is a non-empty string of at most 2000 characters; missing required fields are
 * named in the 400, and so are unknown ones.
 */
export const TEMPLATES = {
  email: {
    required: ["recipient", "purpose"],
    optional: ["keyPoints", "senderName", "callToAction"],
    instruction: "Write an email",
  },
  product_description: {
    required: ["productName", "features"],
    optional: ["audience", "price", "brand"],
    instruction: "Write a product description",
  },
  blog_outline: {
    required: ["topic"],
    optional: ["audience", "keywords", "sections"],
    instruction: "Write a blog post outline with headings and bullet points",
  },
  social_media: {
    required: ["platform", "topic"],
    optional: ["hashtags", "callToAction", "audience"],
    instruction: "Write a social media post",
  },
  marketing_copy: {
    required: ["product", "audience"],
    optional: ["benefits", "callToAction", "channel"],
    instruction: "Write marketing copy",
  },
} as const;

export type TemplateName = keyof typeof TEMPLATES;
export const TEMPLATE_NAMES = Object.keys(TEMPLATES) as TemplateName[];

const LANGUAGES = { de: "German", en: "English", fr: "French", es: "Spanish" } as const;
const LENGTHS = {
  short: "Keep it short: about 50 to 100 words.",
  medium: "Aim for about 150 to 300 words.",
  long: "Write a long, detailed text of about 400 to 700 words.",
} as const;

export const contentBodySchema = z.object({
  template: z.enum(TEMPLATE_NAMES as [TemplateName, ...TemplateName[]]),
  fields: z.record(z.string(), z.string().max(2000, "each field is at most 2000 characters")),
  tone: z.enum(["professional", "friendly", "persuasive", "neutral"]).default("professional"),
  language: z.enum(["de", "en", "fr", "es"]).default("en"),
  length: z.enum(["short", "medium", "long"]).default("medium"),
});
export type ContentBody = z.infer<typeof contentBodySchema>;

/** Checks the template's fields: missing required ones and unknown ones are named in the 400. */
export function checkTemplateFields(body: ContentBody): void {
  const t = TEMPLATES[body.template];
  const missing = t.required.filter((name) => !body.fields[name]?.trim());
  if (missing.length) {
    throw new AppError(
      "validation_failed",
      `Invalid body: fields for template "${body.template}" is missing ${missing.map((m) => `"${m}"`).join(", ")} (required: ${t.required.join(", ")})`,
    );
  }
  const known = new Set<string>([...t.required, ...t.optional]);
  const unknown = Object.keys(body.fields).filter((k) => !known.has(k));
  if (unknown.length) {
    throw new AppError(
      "validation_failed",
      `Invalid body: fields for template "${body.template}" has unknown ${unknown.map((u) => `"${u}"`).join(", ")} (allowed: ${[...known].join(", ")})`,
    );
  }
}

/** The system and user prompts for a template request. */
export function buildContentPrompt(body: ContentBody): { system: string; user: string } {
  const t = TEMPLATES[body.template];
  const system = [
    "You are an experienced copywriter.",
    `Write in ${LANGUAGES[body.language]} with a ${body.tone} tone.`,
    LENGTHS[body.length],
    "Answer with the content only, without preamble.",
  ].join(" ");
  const lines = [...t.required, ...t.optional]
    .filter((name) => body.fields[name]?.trim())
    .map((name) => `- ${name}: ${body.fields[name].trim()}`);
  return { system, user: `${t.instruction} (template: ${body.template}) using these details:\n${lines.join("\n")}` };
}
