"use client";

import { useState } from "react";
import { apiJson, toApiError, type ApiError } from "@/components/api";
import { ErrorNotice } from "@/components/error-notice";
import type { EmailSent, TestEmailSent } from "@/components/types";
import { Banner, PageHeader } from "@/components/ui";
import { useApi } from "@/components/use-api";
import { RadioGroup, SelectField, TextAreaField, TextField } from "@/components/form-field";

const typeLabel = (t: string) => t[0].toUpperCase() + t.slice(1).replace(/_/g, " ");

function listText(items: string[]): string {
  return items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} or ${items[items.length - 1]}`;
}

function SentDetails({ sent, testid, stacked = false }: { sent: EmailSent; testid: string; stacked?: boolean }) {
  return (
    <dl className={`mt-1 grid gap-x-3 gap-y-0.5 ${stacked ? "grid-cols-1" : "grid-cols-[8rem_1fr]"}`} data-testid={testid}>
      <dt>Message id</dt>
      <dd className="break-all font-mono text-xs leading-5" data-testid={`${testid}-message-id`}>
        {sent.messageId}
      </dd>
      <dt>Email log id</dt>
      <dd className="break-all font-mono text-xs leading-5">{sent.emailLogId}</dd>
    </dl>
  );
}

/** POST /api/email/send (recipient policy explained), and outside production POST /api/email/test and the local mailbox. */
const FORMATS = [
  { value: "text", label: "Plain text" },
  { value: "html", label: "HTML" },
] as const;

export function EmailPanel({
  types,
  allowedDomains,
  devTools,
  localMailbox,
}: {
  types: string[];
  allowedDomains: string[];
  devTools: boolean;
  localMailbox: boolean;
}) {
  const session = useApi<{ user?: { email?: string | null } }>("/api/auth/session");
  const ownEmail = session.data?.user?.email ?? "";
  // Until the user types a recipient, the field shows their own address (derived, not set in an effect).
  const [toInput, setToInput] = useState<string | null>(null);
  const to = toInput ?? ownEmail;
  const [subject, setSubject] = useState("");
  const [type, setType] = useState(types.includes("notification") ? "notification" : types[0]);
  const [format, setFormat] = useState<"text" | "html">("text");
  const [body, setBody] = useState("");
  const [busy, setBusy] = useState<"send" | "test" | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [sent, setSent] = useState<(EmailSent & { to: string }) | null>(null);
  const [testSent, setTestSent] = useState<TestEmailSent | null>(null);

  async function send(event: React.FormEvent) {
    event.preventDefault();
    setBusy("send");
    setError(null);
    setSent(null);
    try {
      const recipient = to.trim();
      const result = await apiJson<EmailSent>("/api/email/send", {
        method: "POST",
        json: { to: recipient, subject: subject.trim(), type, [format]: body },
      });
      setSent({ ...result, to: recipient });
    } catch (e) {
      setError(toApiError(e));
    } finally {
      setBusy(null);
    }
  }

  async function sendTest() {
    setBusy("test");
    setError(null);
    setTestSent(null);
    try {
      setTestSent(await apiJson<TestEmailSent>("/api/email/test", { method: "POST", json: { email: to.trim() } }));
    } catch (e) {
      setError(toApiError(e));
    } finally {
      setBusy(null);
    }
  }

  const mailboxLink = devTools ? (
    <a className="link" href="/dev/mailbox">
      local mailbox
    </a>
  ) : null;

  return (
    <>
      <PageHeader
        title="Email"
        description={
          <>
            Send a transactional email through the API. To keep it from being used to send mail to strangers, you can send only to your own
            address{ownEmail ? ` (${ownEmail})` : ""}
            {allowedDomains.length > 0 ? ` or to addresses at ${listText(allowedDomains)}` : ""}; any other recipient is refused.
          </>
        }
      />
      <ErrorNotice error={error} onDismiss={() => setError(null)} />
      {sent ? (
        <Banner tone="success" title={`Email sent to ${sent.to}.`}>
          <SentDetails sent={sent} testid="email-sent" />
          {devTools && localMailbox ? <p className="mt-2">Without an email provider configured it went to the {mailboxLink}.</p> : null}
        </Banner>
      ) : null}
      <div className="grid gap-6 lg:grid-cols-[1fr_18rem]">
        <section className="card" aria-label="New email">
          <form onSubmit={send} className="space-y-4">
            <div className="grid gap-4 sm:grid-cols-2">
              <TextField id="email-to" label="To" type="email" required value={to} onChange={setToInput} autoComplete="email" />
              <SelectField
                id="email-type"
                label="Type"
                value={type}
                onChange={setType}
                options={types.map((t) => ({ value: t, label: typeLabel(t) }))}
              />
            </div>
            <TextField
              id="email-subject"
              label="Subject"
              required
              maxLength={998}
              value={subject}
              onChange={(v) => setSubject(v.replace(/[\r\n]/g, " "))}
            />
            <RadioGroup legend="Format" name="email-format" value={format} onChange={setFormat} options={FORMATS} />
            <TextAreaField
              id="email-body"
              label={format === "html" ? "HTML body" : "Message"}
              inputClassName={`min-h-40 ${format === "html" ? "font-mono" : ""}`}
              value={body}
              onChange={setBody}
              placeholder={format === "html" ? "<p>Hello!</p>" : "Hello!"}
            />
            <div className="flex justify-end">
              <button type="submit" className="btn-primary" disabled={busy !== null || !to.trim() || !subject.trim() || !body.trim()}>
                {busy === "send" ? "Sending…" : "Send email"}
              </button>
            </div>
          </form>
        </section>
        {devTools ? (
          <aside className="card h-fit space-y-3 text-sm" aria-label="Development tools">
            <h2 className="text-base">Development</h2>
            <p className="text-slate-600">
              Send the fixed test message to {to.trim() || "the address in “To”"} (any address; available only outside production).
            </p>
            <button type="button" className="btn-secondary" disabled={busy !== null || !to.trim()} onClick={() => void sendTest()}>
              {busy === "test" ? "Sending…" : "Send test email"}
            </button>
            {testSent ? (
              <div role="status" className="rounded-md border border-emerald-200 bg-emerald-50 p-2 text-emerald-800">
                <p className="font-semibold">Test email sent ({testSent.provider}).</p>
                <SentDetails sent={testSent} testid="test-email-sent" stacked />
              </div>
            ) : null}
            <p className="text-slate-600">
              {localMailbox
                ? "Without an email provider configured, messages go to the "
                : "An email provider is configured, so new messages are delivered; earlier local ones are in the "}
              {mailboxLink}.
            </p>
          </aside>
        ) : null}
      </div>
    </>
  );
}
