import { z } from "zod";

/** JSON answers of the simulator's form endpoints (a form post answers 303 instead). */
export const simulatedCheckoutResponse = z.object({ redirectUrl: z.string() });
export const simulatedPortalResponse = z.object({ message: z.string() });
