/**
 * The API's response shapes as the dashboard reads them, inferred from the response schemas the
 * routes declare (lib/<domain>/schemas.ts): a changed response breaks the build, not the page. Only
 * type imports: nothing of lib/ reaches the browser bundle (npm run lint checks it).
 */
import type { z } from "zod";
import type {
  chatAnswerResponse,
  chatBatchResponse,
  imageGenResponse,
  streamDataEvent,
  streamMetaEvent,
  transcriptionResponse,
} from "@/lib/ai/schemas";
import type {
  bonusPackagesResponse,
  cancelSubscriptionResponse,
  changePlanResponse,
  checkoutUrlResponse,
  portalSessionResponse,
  subscriptionDetailsResponse,
  receiptsResponse,
  autoRechargeResponse,
} from "@/lib/billing/schemas";
import type { apiKeyView, keyCreatedResponse, keysListResponse } from "@/lib/api-keys/schemas";
import type { TierConfig } from "@/lib/config/pricing";
import type {
  aiUsageResponse,
  creditHistoryResponse,
  creditPreferencesResponse,
  creditPreferencesUpdatedResponse,
  creditTransactionSchema,
} from "@/lib/credits/schemas";
import type { emailSentResponse, testEmailSentResponse } from "@/lib/email/schemas";
import type { askResponseSchema, detailResponseSchema, listResponseSchema, ragSourceSchema, ragStreamMetaEvent } from "@/lib/rag/schemas";
import type { fileListResponse, fileRecordSchema } from "@/lib/storage/schemas";
import type { userStatusResponse } from "@/lib/users/schemas";
import type { usageReportResponse } from "@/lib/credits/schemas";
import type { alertsResponse } from "@/lib/spend-alerts/schemas";
import type { deliveriesResponse, endpointCreatedResponse, endpointsResponse, eventsResponse } from "@/lib/outbound/schemas";
import type {
  activeAccountResponse,
  invitesResponse,
  membersResponse,
  organisationDetailResponse,
  organisationsResponse,
  organisationUsageResponse,
  auditResponse,
} from "@/lib/organisations/schemas";

/** GET /api/user/status */
export type UserStatus = z.infer<typeof userStatusResponse>;
/** GET /api/ai/usage */
export type Usage = z.infer<typeof aiUsageResponse>;
/** GET /api/payments/subscription */
export type SubscriptionDetails = z.infer<typeof subscriptionDetailsResponse>;
/** GET /api/payments/receipts */
export type Receipts = z.infer<typeof receiptsResponse>;
export type AutoRecharge = z.infer<typeof autoRechargeResponse>;
/** POST /api/payments/cancel-subscription */
export type SubscriptionCancelled = z.infer<typeof cancelSubscriptionResponse>;
/** POST /api/payments/change-plan */
export type PlanChanged = z.infer<typeof changePlanResponse>;
/** POST /api/payments/create-checkout, /api/checkout/create-url, /api/credits/checkout */
export type CheckoutUrl = z.infer<typeof checkoutUrlResponse>;
/** POST /api/payments/create-portal-session */
export type PortalSession = z.infer<typeof portalSessionResponse>;
/** GET /api/credits/bonus-packages */
export type BonusPackages = z.infer<typeof bonusPackagesResponse>;
/** One row of GET /api/credits/history */
export type CreditTransaction = z.infer<typeof creditTransactionSchema>;
/** GET /api/credits/history */
export type CreditHistory = z.infer<typeof creditHistoryResponse>;
/** GET /api/credits/preferences */
export type CreditPreferences = z.infer<typeof creditPreferencesResponse>;
/** PATCH /api/credits/preferences */
export type CreditPreferencesUpdated = z.infer<typeof creditPreferencesUpdatedResponse>;
/** POST /api/upload, GET /api/files/{id} */
export type FileRecord = z.infer<typeof fileRecordSchema>;
/** GET /api/files */
export type FileList = z.infer<typeof fileListResponse>;
/** A source of a RAG answer */
export type RagSource = z.infer<typeof ragSourceSchema>;
/** POST /api/ai/rag/ask without streaming */
export type RagAnswer = z.infer<typeof askResponseSchema>;
/** GET /api/ai/rag/conversations */
export type ConversationList = z.infer<typeof listResponseSchema>;
export type ConversationSummary = ConversationList["conversations"][number];
/** GET /api/ai/rag/conversations/{id} */
export type ConversationDetail = z.infer<typeof detailResponseSchema>;
export type ConversationMessage = ConversationDetail["messages"][number];
/** POST /api/ai/chat, single request (X-Cache: HIT or MISS tells whether it came from the cache) */
export type ChatAnswer = z.infer<typeof chatAnswerResponse>;
/** POST /api/ai/chat, batch `{ requests: [...] }` */
export type ChatBatchAnswer = z.infer<typeof chatBatchResponse>;
/** POST /api/ai/image-gen */
export type ImageResult = z.infer<typeof imageGenResponse>;
/** POST /api/ai/speech-to-text */
export type Transcript = z.infer<typeof transcriptionResponse>;
/** `data:` events of the text/event-stream answers, and their closing `event: meta` */
export type StreamDataEvent = z.infer<typeof streamDataEvent>;
export type StreamMeta = z.infer<typeof streamMetaEvent>;
/** The closing `event: meta` of a streamed RAG answer */
export type RagStreamMeta = z.infer<typeof ragStreamMetaEvent>;
/** POST /api/email/send */
export type EmailSent = z.infer<typeof emailSentResponse>;
/** POST /api/email/test (development only) */
export type TestEmailSent = z.infer<typeof testEmailSentResponse>;

/** Plans as the billing page needs them (read from the pricing catalog on the server). */
export type PlanOption = Pick<TierConfig, "key" | "name" | "monthlyPrice" | "yearlyPrice" | "monthlyCredits" | "variants">;

/** The feature flags the dashboard's client components need (app/dashboard/features.ts reads them on the server). */
export interface Features {
  creditBased: boolean;
  bonusCredits: boolean;
  userToggle: boolean;
  aiChat: boolean;
  aiAudio: boolean;
  aiImage: boolean;
  aiContent: boolean;
  aiRag: boolean;
}

/** GET /api/keys */
export type ApiKeyList = z.infer<typeof keysListResponse>;
/** One key (never its secret) */
export type ApiKeyView = z.infer<typeof apiKeyView>;
/** POST /api/keys: the key and its secret, shown once */
export type ApiKeyCreated = z.infer<typeof keyCreatedResponse>;

/**
 * What a dashboard page tells its user a call costs: SPEC's fixed credits (AI_PRICING_MODE=flat),
 * "metered" (charged by what the call used: model, tokens, size), or null (no credits: classic SaaS).
 */
export type CallPrice = number | "metered" | null;

export type Organisations = z.infer<typeof organisationsResponse>;
export type OrganisationDetail = z.infer<typeof organisationDetailResponse>;
export type OrganisationMembers = z.infer<typeof membersResponse>;
export type OrganisationMember = OrganisationMembers["members"][number];
export type OrganisationInvites = z.infer<typeof invitesResponse>;
export type OrganisationUsage = z.infer<typeof organisationUsageResponse>;
export type OrganisationAudit = z.infer<typeof auditResponse>;
export type ActiveAccount = z.infer<typeof activeAccountResponse>;
export type UsageReport = z.infer<typeof usageReportResponse>;
export type Alerts = z.infer<typeof alertsResponse>;
export type WebhookEndpoints = z.infer<typeof endpointsResponse>;
export type WebhookEndpointCreated = z.infer<typeof endpointCreatedResponse>;
export type WebhookDeliveries = z.infer<typeof deliveriesResponse>;
export type WebhookEvents = z.infer<typeof eventsResponse>;
