/** What an AI answer cost, once its meta event has arrived: "15 credits used; 985 remaining." */
export function CreditsUsed({
  meta,
  as: Tag = "p",
  className = "mt-3 text-xs text-slate-500",
  testId,
}: {
  meta: { creditsUsed?: number; creditsRemaining?: number | null } | null;
  as?: "p" | "span";
  className?: string;
  testId?: string;
}) {
  if (meta?.creditsUsed === undefined) return null;
  const remaining = typeof meta.creditsRemaining === "number" ? `; ${meta.creditsRemaining.toLocaleString("en")} remaining` : "";
  return (
    <Tag className={className} role="status" data-testid={testId}>
      {meta.creditsUsed} credits used{remaining}
      {Tag === "p" ? "." : ""}
    </Tag>
  );
}
