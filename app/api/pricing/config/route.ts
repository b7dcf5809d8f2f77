import { fullPricingConfig } from "@/lib/config/public-config";
import { missingPricingSettings } from "@/lib/config/pricing";
import { AppError } from "@/lib/errors";
import { methods, route } from "@/lib/http/route";
import { pricingConfigResponse } from "@/lib/config/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route(
    {
      auth: "none",
      cache: "publicMinuteRevalidate",
      summary: "Full pricing catalog",
      description:
        "Every tier with prices, monthly credits, provider variant ids, bonus packages and limits. Validates the configuration first: 500 naming the missing settings (never their values).",
      tags: ["configuration"],
      errors: [500],
      response: pricingConfigResponse,
    },
    () => {
      const missing = missingPricingSettings();
      if (missing.length > 0) throw new AppError("misconfigured", `Incomplete pricing configuration: missing ${missing.join(", ")}`);
      return fullPricingConfig();
    },
  ),
});
