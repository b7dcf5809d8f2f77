import { z } from "zod";
import { AppError } from "@/lib/errors";

/** A template field as the dashboard shows it. */
export interface TemplateField {
  key: string;
  label: string;
  required?: boolean;
  multiline?: boolean;
  placeholder?: string;
}

/**
 * The five content templates of POST /api/ai/generate-content and their `fields` (docs/API-NOTES.md
 * "AI"), defined once: the route checks requests against them and the dashboard's form is built from
 * them (contentFormOptions). Every value is a non-empty string of at most 2000 characters; missing
 * required fields are named in the 400, and so are unknown ones.
 */
const TEMPLATE_DEFS = {
  email: {
    label: "Email",
    instruction: "Write an email",
    fields: [
      { key: "recipient", label: "Recipient", required: true, placeholder: "Our new customers" },
      { key: "purpose", label: "Purpose", required: true, placeholder: "Welcome them and explain the first steps" },
      { key: "keyPoints", label: "Key points", multiline: true },
      { key: "senderName", label: "Sender name" },
      { key: "callToAction", label: "Call to action" },
    ],
  },
  product_description: {
    label: "Product description",
    instruction: "Write a product description",
    fields: [
      { key: "productName", label: "Product name", required: true },
      { key: "features", label: "Features", required: true, multiline: true },
      { key: "audience", label: "Audience" },
      { key: "price", label: "Price" },
      { key: "brand", label: "Brand" },
    ],
  },
  blog_outline: {
    label: "Blog outline",
    instruction: "Write a blog post outline with headings and bullet points",
    fields: [
      { key: "topic", label: "Topic", required: true },
      { key: "audience", label: "Audience" },
      { key: "keywords", label: "Keywords" },
      { key: "sections", label: "Sections" },
    ],
  },
  social_media: {
    label: "Social media post",
    instruction: "Write a social media post",
    fields: [
      { key: "platform", label: "Platform", required: true, placeholder: "LinkedIn" },
      { key: "topic", label: "Topic", required: true },
      { key: "hashtags", label: "Hashtags" },
      { key: "callToAction", label: "Call to action" },
      { key: "audience", label: "Audience" },
    ],
  },
  marketing_copy: {
    label: "Marketing copy",
    instruction: "Write marketing copy",
    fields: [
      { key: "product", label: "Product", required: true },
      { key: "audience", label: "Audience", required: true },
      { key: "benefits", label: "Benefits", multiline: true },
      { key: "callToAction", label: "Call to action" },
      { key: "channel", label: "Channel" },
    ],
  },
} satisfies Record<string, { label: string; instruction: string; fields: TemplateField[] }>;

export type TemplateName = keyof typeof TEMPLATE_DEFS;
export const TEMPLATE_NAMES = Object.keys(TEMPLATE_DEFS) as TemplateName[];

/** Each template's required and optional field names, and its instruction. */
export const TEMPLATES = Object.fromEntries(
  TEMPLATE_NAMES.map((name) => {
    const t = TEMPLATE_DEFS[name];
    const fields = t.fields as TemplateField[];
    return [
      name,
      {
        instruction: t.instruction,
        required: fields.filter((f) => f.required).map((f) => f.key),
        optional: fields.filter((f) => !f.required).map((f) => f.key),
      },
    ];
  }),
) as Record<TemplateName, { instruction: string; required: string[]; optional: string[] }>;

const TONES = ["professional", "friendly", "persuasive", "neutral"] as const;
const LANGUAGES = { en: "English", de: "German", fr: "French", es: "Spanish" } as const;
const LENGTHS = {
  short: { label: "Short (50–100 words)", prompt: "Keep it short: about 50 to 100 words." },
  medium: { label: "Medium (150–300 words)", prompt: "Aim for about 150 to 300 words." },
  long: { label: "Long (400–700 words)", prompt: "Write a long, detailed text of about 400 to 700 words." },
} as const;

/** What the dashboard's content form offers: the templates with their fields, tones, languages and lengths. */
export function contentFormOptions() {
  return {
    templates: TEMPLATE_NAMES.map((key) => ({
      key,
      label: TEMPLATE_DEFS[key].label,
      fields: TEMPLATE_DEFS[key].fields as TemplateField[],
    })),
    tones: TONES.map((t) => ({ value: t, label: t[0].toUpperCase() + t.slice(1) })),
    languages: Object.entries(LANGUAGES).map(([value, label]) => ({ value, label })),
    lengths: Object.entries(LENGTHS).map(([value, l]) => ({ value, label: l.label })),
  };
}
export type ContentFormOptions = ReturnType<typeof contentFormOptions>;

export const contentBodySchema = z.object({
  template: z.enum(TEMPLATE_NAMES as [TemplateName, ...TemplateName[]]),
  fields: z.record(z.string(), z.string().max(2000, "each field is at most 2000 characters")),
  tone: z.enum(TONES).default("professional"),
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
    LENGTHS[body.length].prompt,
    "Answer with the content only, without preamble.",
  ].join(" ");
  const lines = [...t.required, ...t.optional]
    .filter((name) => body.fields[name]?.trim())
    .map((name) => `- ${name}: ${body.fields[name].trim()}`);
  return { system, user: `${t.instruction} (template: ${body.template}) using these details:\n${lines.join("\n")}` };
}
