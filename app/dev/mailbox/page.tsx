import { notFound } from "next/navigation";
import { env } from "@/lib/config/env";
import { listLocalMail } from "@/lib/email/local-mailbox";

export const dynamic = "force-dynamic";

/** Development-only view of the local mailbox (`${DATA_DIR}/mail`). 404 in production. */
export default async function MailboxPage() {
  if (env().isProduction) notFound();
  const messages = await listLocalMail(100);
  const usingResend = Boolean(env().RESEND_API_KEY);
  return (
    <main style={{ fontFamily: "system-ui, sans-serif", maxWidth: 960, margin: "2rem auto", padding: "0 1rem" }}>
      <p>
        <a href="/dashboard" className="link">
          ← Back to the dashboard
        </a>
      </p>
      <h1>Local mailbox</h1>
      <p>
        Messages the app sent while no <code>RESEND_API_KEY</code> was set, newest first (kept in <code>{env().dataDir}/mail</code>).
        {usingResend ? " RESEND_API_KEY is set now, so new messages go to Resend instead." : ""}
      </p>
      {messages.length === 0 ? <p>No messages yet.</p> : null}
      {messages.map((m) => (
        <article key={m.messageId} style={{ border: "1px solid #ccc", borderRadius: 6, padding: "0.75rem 1rem", margin: "1rem 0" }}>
          <h2 style={{ fontSize: "1.1rem", margin: "0 0 0.5rem" }}>{m.subject}</h2>
          <dl style={{ display: "grid", gridTemplateColumns: "6rem 1fr", gap: "0.2rem 1rem", margin: 0, fontSize: "0.9rem" }}>
            <dt>To</dt>
            <dd style={{ margin: 0 }}>{m.to}</dd>
            <dt>From</dt>
            <dd style={{ margin: 0 }}>{m.from}</dd>
            <dt>Sent</dt>
            <dd style={{ margin: 0 }}>{m.sentAt}</dd>
            <dt>Message id</dt>
            <dd style={{ margin: 0 }}>
              <code>{m.messageId}</code>
            </dd>
          </dl>
          {m.html ? (
            // Rendered in a sandboxed frame: no scripts, no same-origin access. Its links open in the
            // top window when clicked (the app itself may not be framed: X-Frame-Options DENY).
            <iframe
              title={`Message ${m.messageId}`}
              sandbox="allow-top-navigation-by-user-activation allow-popups allow-popups-to-escape-sandbox"
              srcDoc={`<base target="_top">${m.html}`}
              style={{ width: "100%", minHeight: 160, border: "1px solid #eee", marginTop: "0.75rem" }}
            />
          ) : null}
          {m.text ? (
            <pre
              style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere", background: "#f7f7f7", padding: "0.5rem", marginTop: "0.75rem" }}
            >
              {m.text}
            </pre>
          ) : null}
        </article>
      ))}
    </main>
  );
}
