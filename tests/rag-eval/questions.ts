/**
 * The retrieval evaluation set over the shipped knowledge folder: each question with the document and
 * the passage (a verbatim excerpt, whitespace-insensitive) that answers it. A question counts as
 * recalled at k when one of the top k chunks contains the passage.
 */
export interface EvalQuestion {
  question: string;
  path: string;
  passage: string;
}

export const EVAL_QUESTIONS: EvalQuestion[] = [
  {
    question: "How many credits does the Pro plan include each month?",
    path: "plans-and-credits.md",
    passage: "The Pro plan costs $29.99 per month or $299 per year and gives 5,000 credits per month",
  },
  {
    question: "What does the Basic plan cost per year?",
    path: "plans-and-credits.md",
    passage: "The Basic plan costs $9.99 per month or $99 per year",
  },
  {
    question: "How many free credits does a new user get?",
    path: "plans-and-credits.md",
    passage: "A new user gets the free tier's 200 credits when their account is created",
  },
  {
    question: "How long is the free trial of a paid plan?",
    path: "plans-and-credits.md",
    passage: "a paid plan starts with a 14-day free\ntrial for users who never had one",
  },
  {
    question: "Do unused subscription credits roll over to the next month?",
    path: "plans-and-credits.md",
    passage: "Unused subscription credits do not roll over",
  },
  { question: "How many credits does image generation cost?", path: "plans-and-credits.md", passage: "| Image generation | 80 |" },
  {
    question: "What happens to my credits when the AI provider fails?",
    path: "plans-and-credits.md",
    passage: "If the AI provider fails, the reserved credits are refunded automatically",
  },
  {
    question: "When are bonus credits used instead of subscription credits?",
    path: "plans-and-credits.md",
    passage: "Bonus credits are used only when the user has turned on automatic bonus use",
  },
  {
    question: "Which bonus credit packages can a Pro subscriber buy?",
    path: "plans-and-credits.md",
    passage: "| Pro | 2,000 credits for $14.99; 5,000 credits for $29.99 | 10,000 credits |",
  },
  {
    question: "When do purchased bonus credits expire?",
    path: "plans-and-credits.md",
    passage: "Bonus credits expire 365 days after purchase",
  },
  {
    question: "What does the usage endpoint return when the credit system is off in classic SaaS mode?",
    path: "plans-and-credits.md",
    passage: "it answers `unlimited: true`, tier `unlimited`, and 999999",
  },
  {
    question: "How do I turn on automatic use of bonus credits?",
    path: "plans-and-credits.md",
    passage: '`PATCH /api/credits/preferences` with\n  `{ "bonusCreditsAutoUse": true }`',
  },
  {
    question: "What status do I get when I do not have enough credits?",
    path: "plans-and-credits.md",
    passage: "If the balance is too low the request fails\n  with status 402",
  },
  {
    question: "How do I cancel my subscription and when does it end?",
    path: "payments-and-subscriptions.md",
    passage: "`POST /api/payments/cancel-subscription` (no body) cancels at the end of the current billing\n  period",
  },
  {
    question: "How many times can I downgrade during a trial?",
    path: "payments-and-subscriptions.md",
    passage: "During a trial you may downgrade at most 2 times",
  },
  {
    question: "How long is the billing portal URL valid?",
    path: "payments-and-subscriptions.md",
    passage: "a billing portal address that\n  is valid for 24 hours",
  },
  {
    question: "What happens when a subscription expires?",
    path: "payments-and-subscriptions.md",
    passage: "| `subscription_expired` | the user is downgraded to the free tier |",
  },
  {
    question: "What values can the status field of the user status endpoint have?",
    path: "payments-and-subscriptions.md",
    passage: "The status is one of `free`, `trialing`, `active_subscriber`, `cancelled`, `past_due`,\n  `unpaid` or `paused`",
  },
  {
    question: "What is the registration-first checkout flow?",
    path: "payments-and-subscriptions.md",
    passage: "is the registration-first flow: it\n  answers a 302 redirect",
  },
  { question: "What temperature range does the chat endpoint accept?", path: "ai-features.md", passage: "`temperature` (0 to 2)" },
  {
    question: "How much does streaming chat cost with an image?",
    path: "ai-features.md",
    passage: "Costs 20 credits for text and 30 credits when an image is detected in the messages",
  },
  {
    question: "Which audio formats does speech-to-text accept and how large can the file be?",
    path: "ai-features.md",
    passage: "`audio` (WebM, WAV, MP3, M4A, OGG or FLAC; at most 25 MB)",
  },
  {
    question: "Why is a transparent background with jpeg output rejected?",
    path: "ai-features.md",
    passage: "A transparent background with JPEG output is refused with 400, because JPEG has no transparency",
  },
  {
    question: "Which fields does the product_description template require?",
    path: "ai-features.md",
    passage: "| `product_description` | `productName`, `features` |",
  },
  {
    question: "How many requests can a batch chat contain?",
    path: "ai-features.md",
    passage: "with 1 to 10 requests, which run\nconcurrently",
  },
  {
    question: "What does a RAG question cost?",
    path: "document-question-answering.md",
    passage: "A question costs 10 credits plus 1 credit per started 500 tokens of context, at most 20 credits",
  },
  {
    question: "Which uploaded file types become searchable by question answering?",
    path: "document-question-answering.md",
    passage: "plain text (`text/plain`), Markdown (`text/markdown`), CSV (`text/csv`), JSON\n(`application/json`) and PDF",
  },
  {
    question: "What headers does the streaming RAG ask response include?",
    path: "document-question-answering.md",
    passage: "`X-RAG-Sources`: base64-encoded JSON array of the sources",
  },
  {
    question: "How do I delete a RAG conversation?",
    path: "document-question-answering.md",
    passage: "`DELETE /api/ai/rag/conversations?id=<conversation id>` deletes a conversation",
  },
  {
    question: "What is the default page size when listing conversations?",
    path: "document-question-answering.md",
    passage: "`limit` is 1 to 100 (default 20)",
  },
  {
    question: "How are documents split into chunks for retrieval?",
    path: "document-question-answering.md",
    passage: "Documents are split into passages of at most 256 tokens, with 48 tokens of overlap",
  },
  {
    question: "How do I sign in with the development login from a script?",
    path: "sign-in-and-authentication.md",
    passage: "`GET /api/auth/csrf` returns a\n`csrfToken`, then `POST /api/auth/callback/dev`",
  },
  {
    question: "How can an API client send the session token without cookies?",
    path: "sign-in-and-authentication.md",
    passage: "`Authorization: Bearer <session token>`",
  },
  { question: "How long does a session last?", path: "sign-in-and-authentication.md", passage: "JWT sessions that last\n30 days" },
  {
    question: "Which file types can I upload?",
    path: "files-and-email.md",
    passage: "Accepted file types: images (`image/png`, `image/jpeg`, `image/gif`, `image/webp`), PDF",
  },
  { question: "What is the maximum upload size?", path: "files-and-email.md", passage: "The default maximum size is 50 MB" },
  {
    question: "What happens if I upload the same file twice?",
    path: "files-and-email.md",
    passage: "409 duplicate file: you already uploaded exactly the same content",
  },
  {
    question: "How long is the download URL of a file valid?",
    path: "files-and-email.md",
    passage: "Its `url` is a short-lived address (15 minutes by\n  default",
  },
  { question: "Who can I send email to?", path: "files-and-email.md", passage: "You can send only to your own account address" },
  {
    question: "How is the payment webhook signature verified?",
    path: "webhooks-limits-and-errors.md",
    passage: "header `X-Signature`: hex HMAC-SHA256 of the raw body with `PAYMENT_WEBHOOK_SECRET`",
  },
  {
    question: "When does the bonus credit expiry cron job run?",
    path: "webhooks-limits-and-errors.md",
    passage: "| `/api/cron/expire-bonus-credits` | `0 3 * * *` (daily at 03:00 UTC)",
  },
  {
    question: "What is the rate limit for sending email?",
    path: "webhooks-limits-and-errors.md",
    passage: "| `email` | 5 | 10 | email send |",
  },
  {
    question: "What happens when the rate limit store is unavailable?",
    path: "webhooks-limits-and-errors.md",
    passage: "If the rate-limit store is unavailable,\nrequests pass and a warning is logged",
  },
  {
    question: "What does the health check return when the database is down?",
    path: "webhooks-limits-and-errors.md",
    passage: "It answers 200 when healthy and 503 when unhealthy",
  },
  { question: "What does status 409 mean?", path: "webhooks-limits-and-errors.md", passage: "| 409 | duplicate file upload |" },
  {
    question: "What does the service do when no environment variables are set?",
    path: "overview.md",
    passage: "With no environment variables the service uses an embedded\nPostgreSQL database (PGlite)",
  },
  {
    question: "How do I recognise an answer from the offline AI provider?",
    path: "overview.md",
    passage: "deterministic answers that start with `[offline]`",
  },
  {
    question: "What happens to endpoints of a disabled feature flag?",
    path: "overview.md",
    passage: "A disabled feature makes its endpoints answer 404 as if they did\n  not exist",
  },
];
