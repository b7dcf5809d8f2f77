import Link from "next/link";

/** What anyone may read without signing in (JSON, not pages). */
const JSON_ENDPOINTS = [
  { href: "/api/health", label: "Health" },
  { href: "/api/config/public", label: "Public configuration" },
  { href: "/api/pricing/config", label: "Pricing" },
];

export default function Home() {
  return (
    <main id="main" className="mx-auto flex min-h-screen max-w-3xl flex-col justify-center px-6 py-16">
      <p className="text-sm font-semibold uppercase tracking-wider text-brand-600">Subscription AI Service</p>
      <h1 className="mt-2 text-4xl font-bold tracking-tight">Subscriptions, credits and AI features behind one API</h1>
      <p className="mt-4 text-lg text-slate-600">
        Sign in to the dashboard to manage your plan and credits, chat with the AI, generate images and content, transcribe audio, upload
        files and ask questions about your documents.
      </p>
      <div className="mt-8 flex flex-wrap gap-3">
        <Link href="/dashboard" className="btn-primary">
          Open the dashboard
        </Link>
        <Link href="/signin" className="btn-secondary">
          Sign in
        </Link>
      </div>
      <ul className="mt-10 flex flex-wrap gap-x-6 gap-y-2 text-sm">
        {JSON_ENDPOINTS.map(({ href, label }) => (
          <li key={href}>
            <a className="link" href={href}>
              {label}
            </a>
          </li>
        ))}
      </ul>
    </main>
  );
}
