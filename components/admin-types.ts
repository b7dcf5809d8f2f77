/**
 * The operator API's response shapes as the console pages read them, inferred from the schemas the
 * admin routes declare (lib/admin/schemas.ts). Type imports only.
 */
import type { z } from "zod";
import type {
  organisationsListResponse,
  outboundListResponse,
  adjustCreditsResponse,
  aiRoutesResponse,
  auditListResponse,
  cronOverviewResponse,
  cronRunNowResponse,
  deliveriesListResponse,
  deliveryDetailResponse,
  emailsListResponse,
  lockResponse,
  replayResponse,
  summaryResponse,
  unlinkIdentityResponse,
  revokeKeyResponse,
  usageReportResponse,
  userOverviewResponse,
  usersListResponse,
} from "@/lib/admin/schemas";

export type AdminSummary = z.infer<typeof summaryResponse>;
export type AdminUsers = z.infer<typeof usersListResponse>;
export type AdminOrganisations = z.infer<typeof organisationsListResponse>;
export type AdminOutbound = z.infer<typeof outboundListResponse>;
export type AdminUser = z.infer<typeof userOverviewResponse>;
export type AdminAdjustment = z.infer<typeof adjustCreditsResponse>;
export type AdminLock = z.infer<typeof lockResponse>;
export type AdminUnlink = z.infer<typeof unlinkIdentityResponse>;
/** POST /api/admin/users/{id}/keys/{keyId}/revoke */
export type AdminRevokeKey = z.infer<typeof revokeKeyResponse>;
export type AdminUsage = z.infer<typeof usageReportResponse>;
export type AdminAiRoutes = z.infer<typeof aiRoutesResponse>;
export type AdminDeliveries = z.infer<typeof deliveriesListResponse>;
export type AdminDelivery = z.infer<typeof deliveryDetailResponse>;
export type AdminReplay = z.infer<typeof replayResponse>;
export type AdminCron = z.infer<typeof cronOverviewResponse>;
export type AdminCronRun = z.infer<typeof cronRunNowResponse>;
export type AdminEmails = z.infer<typeof emailsListResponse>;
export type AdminAudit = z.infer<typeof auditListResponse>;
