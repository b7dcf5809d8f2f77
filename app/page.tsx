import Link from "next/link";

export default function Home() {
  return (
    <main style={{ fontFamily: "system-ui, sans-serif", maxWidth: 720, margin: "4rem auto", padding: "0 1rem" }}>
      <h1>Subscription AI Service</h1>
      <p>The API is served under <code>/api</code>. See the README for the endpoints and how to sign in.</p>
      <ul>
        <li><Link href="/signin">Sign in</Link></li>
        <li><a href="/api/health">Health</a></li>
        <li><a href="/api/config/public">Public configuration</a></li>
      </ul>
    </main>
  );
}
