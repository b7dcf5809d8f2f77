/** Response shapes of the API (SPEC.md, docs/API-NOTES.md) as the dashboard reads them. */

export interface UserStatus {
  status: string;
  tier: string;
  billingPeriod: string;
  isTrial: boolean;
  needsAction: boolean;
  isLocked: boolean;
}

export interface Usage {
  unlimited: boolean;
  tier: string;
  monthlyLimit: number;
  remaining: number;
  bonusCredits: number;
  used: number;
  resetAt?: string;
}

export interface SubscriptionDetails {
  subscription: {
    id: string;
    status: string;
    variantId: string;
    currentPeriodEnd: string | null;
    trialEndsAt?: string | null;
    endsAt?: string | null;
    paymentFailed?: boolean;
  } | null;
  hasActiveSubscription: boolean;
  tier: string;
  billingPeriod: string;
  planName: string;
  isFreePlan: boolean;
  user: { downgradeCount: number; hasUsedTrial: boolean };
  limits: Record<string, number>;
}

export interface BonusPackages {
  enabled: boolean;
  packages: { credits: number; price: number; variantId: string }[];
  monthlyLimit: number;
  monthlyPurchasedCredits: number;
  canPurchaseMore: boolean;
  tier: string;
}

export interface CreditTransaction {
  id: string;
  amount: number;
  balanceAfter: number;
  type: string;
  operation: string;
  metadata: Record<string, unknown>;
  createdAt: string;
}

export interface CreditHistory {
  transactions: CreditTransaction[];
  totalCount: number;
  availableYears: number[];
}

export interface FileRecord {
  id: string;
  url: string;
  originalName: string;
  size: number;
  contentType: string;
  createdAt: string;
}

export interface RagSource {
  title: string;
  path?: string;
  fileId?: string;
  excerpt: string;
  score: number;
}

export interface ConversationSummary {
  id: string;
  title: string;
  messageCount: number;
  lastMessage: string;
  createdAt: string;
  updatedAt?: string;
}

export interface ConversationMessage {
  id: string;
  role: string;
  content: string;
  tokens: number;
  model: string;
  createdAt: string;
  sources?: RagSource[];
}

/** Plans as the billing page needs them (read from the pricing catalog on the server). */
export interface PlanOption {
  key: string;
  name: string;
  monthlyPrice: number;
  yearlyPrice: number;
  monthlyCredits: number;
  variants: { monthly: string; yearly: string };
}

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

/** POST /api/ai/chat, single request (X-Cache: HIT or MISS tells whether it came from the cache). */
export interface ChatAnswer {
  text: string;
  model: string;
  usage: { promptTokens: number; completionTokens: number };
  cost: number;
}

/** POST /api/ai/chat, batch `{ requests: [...] }`: results in request order, `cost` = credits charged. */
export interface ChatBatchAnswer {
  /** `cached`: the item was answered from the user's answer cache (no AI call; charged all the same). */
  results: ((ChatAnswer & { cached: boolean }) | { error: string })[];
  cost: number;
}

/** POST /api/email/send. */
export interface EmailSent {
  success: boolean;
  messageId: string;
  emailLogId: string;
}

/** POST /api/email/test (development only). */
export interface TestEmailSent extends EmailSent {
  provider: string;
}
