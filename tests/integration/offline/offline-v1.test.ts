import { afterAll, describe, expect, it } from "vitest";
import * as chat from "@/app/v1/chat/completions/route";
import * as embeddings from "@/app/v1/embeddings/route";
import { db, closeDb } from "@/lib/db/client";
import { setEnv } from "@/tests/helpers/env";
import { userWithKey, v1 } from "../api-keys/key-test-kit";

// The embedded default: no provider configured, so the offline provider answers every kind /v1 offers.
const undo = setEnv({
  OPENAI_API_KEY: undefined,
  ANTHROPIC_API_KEY: undefined,
  GEMINI_API_KEY: undefined,
  AI_PROVIDERS: undefined,
  AI_ROUTES: undefined,
});
afterAll(async () => {
  undo();
  await closeDb();
});

async function ledgerKinds(userId: string) {
  return (await (await db()).creditOperation.findMany({ where: { userId }, orderBy: { createdAt: "asc" } })).map((o) => o.kind);
}

describe("/v1 on the embedded default (offline provider)", () => {
  it("answers embeddings with deterministic vectors", async () => {
    const { secret, user } = await userWithKey();
    const first = await v1(embeddings.POST, "/v1/embeddings", secret, {
      body: { model: "text-embedding-3-small", input: ["one two", "three"] },
    });
    expect(first.status, first.text).toBe(200);
    expect(first.body.data).toHaveLength(2);
    const again = await v1(embeddings.POST, "/v1/embeddings", secret, {
      body: { model: "text-embedding-3-small", input: ["one two", "three"] },
    });
    expect(again.body.data[0].embedding).toEqual(first.body.data[0].embedding);
    console.log(first.body.model, await ledgerKinds(user.id));
  });

  it("names the same model in JSON and streamed answers", async () => {
    const { secret } = await userWithKey();
    const json = await v1(chat.POST, "/v1/chat/completions", secret, {
      body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] },
    });
    const streamed = await v1(chat.POST, "/v1/chat/completions", secret, {
      body: { model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: "hi" }] },
    });
    console.log(json.body.model, streamed.text.slice(0, 400));
  });
});
