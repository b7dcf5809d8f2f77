import type { Metadata } from "next";
import { env } from "@/lib/config/env";
import { ALLOWED_TYPES } from "@/lib/storage/file-types";
import { dashboardFeatures } from "../features";
import { FilesPanel } from "./files-panel";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Files" };

export default function FilesPage() {
  return <FilesPanel allowedTypes={[...ALLOWED_TYPES]} maxBytes={env().UPLOAD_MAX_BYTES} ragEnabled={dashboardFeatures().aiRag} />;
}
