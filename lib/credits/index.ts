/**
 * The credit ledger (see docs/API-NOTES.md "Credits"): subscription credits + bonus purchases, every
 * change with its ledger row in the same transaction.
 */
export type { CreditAllowance, Reservation } from "./types";
export { UNLIMITED_CREDITS } from "./types";
export { reserveCredits, type ReserveInput } from "./reserve-credits";
export {
  drainSettlements,
  flushKeptSettlementsBeforeExit,
  replayJournaledSettlements,
  pendingSettlements,
  settleInBackground,
  settleReservation,
  type SettleInput,
  type Settlement,
} from "./settle-reservation";
export { keptSettlements } from "./settlement-retries";
export { refundStaleReservations, staleReservationMs } from "./refund-stale-reservations";
export { refundReservation } from "./refund-reservation";
export { getCreditSummary, type CreditSummary } from "./get-credit-summary";
export { applyMonthlyAllocation, freeCycleKey, rolloverFreeAllocationIfDue, type MonthlyAllocationInput } from "./apply-monthly-allocation";
export { grantBonusPurchase, type BonusPurchaseInput } from "./grant-bonus-purchase";
export { monthlyBonusPurchased } from "./monthly-bonus-purchased";
export { expireBonusPurchases } from "./expire-bonus-purchases";
export { initializeCredits } from "./initialize-credits";
export { getAiUsage, type AiUsage } from "./get-ai-usage";
export { observeCharges, type ChargeObserver, type SettledCharge } from "./charge-observers";
export { accountPeriodEnd, allocationPeriodEnd } from "./allocation-period";
export { projectCycle } from "./project-cycle";
export { listCreditHistory, type CreditHistory, type CreditHistoryEntry } from "./list-credit-history";
export { exportCreditHistory } from "./export-credit-history";
export { getCreditPreferences, setBonusCreditsAutoUse, type CreditPreferences } from "./credit-preferences";
export { takeBackPayment, type TakeBack } from "./take-back-payment";
export { disputePayment, type DisputeMove, type DisputeState } from "./dispute-payment";
export { adjustCredits, type AdjustmentInput, type AdjustmentResult, type CreditBucket } from "./adjust-credits";
export { countCreditsGranted } from "./insert-bonus-purchase";
export { checkModelRules, forgetModelRules, modelAllowed, modelRulesOf } from "./model-rules";
