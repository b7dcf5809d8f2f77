import { alertsLink, wordsOfEvent } from "./event-email";

/** The alerts a Slack-compatible endpoint gets in their email's words (the rest as their type and first fields). */
const ALERTS = new Set(["credits.low", "credits.depleted", "budget.threshold", "spend.rate", "credits.projected_overrun"]);

/**
 * What an endpoint with `format: "slack"` is sent instead of the event: `{"text": ...}`, the body a
 * Slack (or Mattermost, Discord's /slack, Teams' incoming-webhook) incoming webhook takes. Alerts say
 * what the email says, with its link; other events their type and their first few fields.
 */
export function slackBodyOf(payload: unknown): string {
  const event = payload as { type?: string; data?: Record<string, unknown> };
  const type = String(event?.type ?? "event");
  const data = event?.data && typeof event.data === "object" ? event.data : {};
  let text: string;
  if (ALERTS.has(type)) {
    const { subject, line } = wordsOfEvent({ type, data });
    text = `*${subject}*\n${line}\n<${alertsLink()}|Buy more credits or change your alerts>`;
  } else {
    const fields = Object.entries(data)
      .filter(([, v]) => v === null || ["string", "number", "boolean"].includes(typeof v))
      .slice(0, 4)
      .map(([k, v]) => `${k}: ${String(v)}`);
    text = `*${type}*${fields.length ? `\n${fields.join("\n")}` : ""}`;
  }
  return JSON.stringify({ text });
}
