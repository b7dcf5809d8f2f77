import type { ReactNode } from "react";
import { SectionTabs } from "@/components/tabs";
import { dashboardFeatures } from "../features";

export const dynamic = "force-dynamic";

/** AI studio: one tab per enabled AI feature (disabled ones are not shown). */
export default function AiLayout({ children }: { children: ReactNode }) {
  const f = dashboardFeatures();
  const items = [
    f.aiChat && { href: "/dashboard/ai", label: "Chat" },
    f.aiChat && { href: "/dashboard/ai/batch", label: "Single / batch" },
    f.aiImage && { href: "/dashboard/ai/image", label: "Image generation" },
    f.aiContent && { href: "/dashboard/ai/content", label: "Content templates" },
    f.aiAudio && { href: "/dashboard/ai/speech", label: "Speech to text" },
  ].filter(Boolean) as { href: string; label: string }[];
  return (
    <>
      <SectionTabs label="AI studio" items={items} />
      {children}
    </>
  );
}
