import { mailedLinkBase } from "@/lib/config/public-url";

interface EventEnvelope {
  type: string;
  data: Record<string, unknown>;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const n = (value: unknown) => Number(value ?? 0).toLocaleString("en-US");

/** Where an alert's reader buys more credits or changes their alerts. */
export function alertsLink(): string {
  return `${mailedLinkBase()}/dashboard/credits`;
}

/** The email of an alert event: the figure, what it means, and where to buy more. */
export function emailOfEvent(event: EventEnvelope): { subject: string; text: string; html: string } {
  const { subject, line } = wordsOfEvent(event);
  const buy = alertsLink();
  const text = `${line}\n\nBuy more credits or change your alerts: ${buy}\n`;
  const html = `<p>${escapeHtml(line)}</p><p><a href="${escapeHtml(buy)}">Buy more credits or change your alerts</a></p>`;
  return { subject, text, html };
}

/** An event in words: a subject and one line saying what it means (emails and Slack-compatible endpoints say the same). */
export function wordsOfEvent(event: EventEnvelope): { subject: string; line: string } {
  const d = event.data;
  const who = typeof d.accountName === "string" && d.accountName ? ` (${d.accountName})` : "";
  let subject: string;
  let line: string;
  switch (event.type) {
    case "credits.low":
      subject = `Your credits are running low${who}`;
      line = `${n(d.balance)} credits are left, under the ${n(d.level)} you asked to be told about.`;
      break;
    case "credits.depleted":
      subject = `Your credits are used up${who}`;
      line = `No credits are left: AI calls are refused until you buy more or the monthly allocation renews${d.resetsAt ? ` (${String(d.resetsAt).slice(0, 10)})` : ""}.`;
      break;
    case "budget.threshold":
      subject =
        d.scope === "key"
          ? `API key “${String(d.keyName ?? "")}” reached ${n(d.threshold)}% of its budget`
          : d.scope === "member"
            ? `${memberOf(d)} reached ${n(d.threshold)}% of their ${d.period === "day" ? "daily" : "monthly"} cap${who}`
            : d.scope === "organisation"
              ? `The team reached ${n(d.threshold)}% of its ${d.period === "day" ? "daily" : "monthly"} budget${who}`
              : `You have used ${n(d.threshold)}% of your monthly credits${who}`;
      line =
        d.scope === "key"
          ? `The key has spent ${n(d.spent)} of its ${n(d.budget)}-credit budget${d.period && d.period !== "total" ? ` for this ${String(d.period)}` : ""}.`
          : d.scope === "member"
            ? `${memberOf(d)} has spent ${n(d.spent)} of their ${n(d.cap)}-credit cap on the organisation's wallet ${d.period === "day" ? "today (UTC)" : "this month"}; at the cap, their calls are refused until the next ${d.period === "day" ? "day" : "month"} or an admin raises it.`
            : d.scope === "organisation"
              ? `The organisation's members and keys have spent ${n(d.spent)} of its ${n(d.budget)}-credit budget ${d.period === "day" ? "today (UTC)" : "this month"}; at the budget, its calls are refused until the next ${d.period === "day" ? "day" : "month"} or an admin raises it.`
              : `${n(d.used)} of this month's ${n(d.allocation)} credits are spent; ${n(d.balance)} usable credits are left.`;
      break;
    case "credits.auto_recharge_failed":
      subject = `Auto-recharge failed: ${n(d.credits)} credits were not bought${who}`;
      line = `The saved card was not charged: ${String(d.message ?? "the payment failed")}. Auto-recharge is paused until you update the card (billing portal) and turn it on again on the credits page.`;
      break;
    case "credits.auto_recharge_succeeded":
      subject = `Auto-recharge: ${n(d.credits)} credits bought${who}`;
      line = `${n(d.credits)} credits were bought with the saved card (${(Number(d.amount ?? 0) / 100).toFixed(2)} ${String(d.currency ?? "")}).`;
      break;
    case "spend.rate":
      subject = `${n(d.spent)} credits spent within the hour${who}`;
      line = `${n(d.spent)} credits were spent since ${String(d.hourStart ?? "").slice(11, 16)} UTC, reaching the hourly limit of ${n(d.limit)} you set. Nothing is refused: check what is spending them.`;
      break;
    case "credits.projected_overrun":
      subject = `At this pace your credits run out before the month ends${who}`;
      line = `${n(d.spent)} credits are spent this cycle; at this pace ${n(d.projected)} will be by ${String(d.cycleEnd ?? "").slice(0, 10)}, more than the ${n(d.balance)} usable credits left.`;
      break;
    default:
      subject = `Account notice: ${event.type}`;
      line = "Something changed on your account.";
  }
  return { subject, line };
}

/** The member an alert names, as one line of at most 100 characters (a name is the person's own text). */
function memberOf(d: Record<string, unknown>): string {
  const name = typeof d.memberName === "string" && d.memberName.trim() ? d.memberName : String(d.memberEmail ?? "A member");
  return name
    .replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, " ")
    .trim()
    .slice(0, 100);
}
