import { SignInForm } from "./sign-in-form";

export const dynamic = "force-dynamic";

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ callbackUrl?: string; error?: string }> }) {
  const { callbackUrl, error } = await searchParams;
  return (
    <main style={{ fontFamily: "system-ui, sans-serif", maxWidth: 420, margin: "4rem auto", padding: "0 1rem" }}>
      <h1>Sign in</h1>
      {error ? <p role="alert">Sign-in failed. Check the email address and try again.</p> : null}
      <SignInForm callbackUrl={callbackUrl?.startsWith("/") ? callbackUrl : "/dashboard"} />
    </main>
  );
}
