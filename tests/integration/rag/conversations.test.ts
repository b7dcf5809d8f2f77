import { afterAll, describe, expect, it } from "vitest";
import { DELETE, GET, POST } from "@/app/api/ai/rag/conversations/route";
import { GET as DETAIL, DELETE as DETAIL_DELETE } from "@/app/api/ai/rag/conversations/[id]/route";
import { closeDb, db } from "@/lib/db/client";
import { setEnv } from "@/tests/helpers/env";
import { call, signIn } from "@/tests/helpers/http";

afterAll(closeDb);

/** Creates a conversation with `messages` alternating user/assistant, `minutesAgo` old. */
async function seedConversation(userId: string, title: string, messages: string[], minutesAgo = 0, tier = "free") {
  const prisma = await db();
  const at = new Date(Date.now() - minutesAgo * 60_000);
  return prisma.ragConversation.create({
    data: {
      userId,
      title,
      tier,
      createdAt: at,
      updatedAt: at,
      messages: {
        create: messages.map((content, i) => ({
          role: i % 2 === 0 ? "user" : "assistant",
          content,
          tokens: content.length,
          model: "offline-chat",
          createdAt: new Date(at.getTime() + i),
        })),
      },
    },
  });
}

const list = (cookie: string | undefined, query = "") => call(GET, { path: `/api/ai/rag/conversations${query}`, cookie });
const detail = (cookie: string | undefined, id: string) =>
  call(DETAIL, { path: `/api/ai/rag/conversations/${id}`, cookie, params: { id } });
const remove = (cookie: string | undefined, query: string) =>
  call(DELETE, { method: "DELETE", path: `/api/ai/rag/conversations${query}`, cookie });

describe("RAG conversations: auth, flag, methods", () => {
  it("answers 401 without a session on list, detail and delete", async () => {
    expect((await list(undefined)).status).toBe(401);
    expect((await detail(undefined, "x")).status).toBe(401);
    expect((await remove(undefined, "?id=x")).status).toBe(401);
  });

  it("answers 404 on list, detail and delete when PUBLIC_AI_RAG_CHAT_ENABLED is false", async () => {
    const { user, cookie } = await signIn();
    const c = await seedConversation(user.id, "Kept", ["q", "a"]);
    const restore = setEnv({ PUBLIC_AI_RAG_CHAT_ENABLED: "false" });
    try {
      for (const res of [await list(cookie), await detail(cookie, c.id), await remove(cookie, `?id=${c.id}`)]) {
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ error: "Not found", code: "feature_disabled" });
      }
    } finally {
      restore();
    }
    expect((await detail(cookie, c.id)).status).toBe(200);
  });

  it("answers 405 with an Allow header for methods that do not exist", async () => {
    const res = await call(POST, { method: "POST", path: "/api/ai/rag/conversations", body: {} });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, DELETE");
    const res2 = await call(DETAIL_DELETE, { method: "DELETE", path: "/api/ai/rag/conversations/x" });
    expect(res2.status).toBe(405);
    expect(res2.headers.get("allow")).toBe("GET");
  });
});

describe("GET /api/ai/rag/conversations", () => {
  it("lists only the user's conversations, newest activity first, with summaries and pagination (default 20)", async () => {
    const { user, cookie } = await signIn();
    const other = await signIn();
    await seedConversation(other.user.id, "Someone else's", ["secret question", "secret answer"]);
    for (let i = 0; i < 23; i++)
      await seedConversation(user.id, `Question ${i}`, [`question ${i}`, `answer ${i}`, `follow-up ${i}`], 100 - i);

    const first = await list(cookie);
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe("no-store");
    expect(first.headers.get("x-ratelimit-limit")).toBeNull();
    expect(first.body.pagination).toEqual({ total: 23, limit: 20, offset: 0, hasMore: true });
    expect(first.body.conversations).toHaveLength(20);
    expect(first.body.conversations[0]).toEqual({
      id: expect.any(String),
      title: "Question 22",
      messageCount: 3,
      lastMessage: "follow-up 22",
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: expect.stringMatching(/Z$/),
    });
    expect(first.body.conversations.map((c: any) => c.title)).not.toContain("Someone else's");

    const rest = await list(cookie, "?limit=20&offset=20");
    expect(rest.body.pagination).toEqual({ total: 23, limit: 20, offset: 20, hasMore: false });
    expect(rest.body.conversations.map((c: any) => c.title)).toEqual(["Question 2", "Question 1", "Question 0"]);

    const small = await list(cookie, "?limit=5&offset=3");
    expect(small.body.pagination).toEqual({ total: 23, limit: 5, offset: 3, hasMore: true });
    expect(small.body.conversations[0].title).toBe("Question 19");

    const beyond = await list(cookie, "?offset=100");
    expect(beyond.body).toEqual({ conversations: [], pagination: { total: 23, limit: 20, offset: 100, hasMore: false } });
  });

  it("answers an empty list for a new user", async () => {
    const { cookie } = await signIn();
    expect((await list(cookie)).body).toEqual({ conversations: [], pagination: { total: 0, limit: 20, offset: 0, hasMore: false } });
  });

  it.each(["?limit=0", "?limit=101", "?limit=abc", "?limit=2.5", "?offset=-1", "?offset=x"])(
    "answers 400 naming the parameter for %s",
    async (query) => {
      const { cookie } = await signIn();
      const res = await list(cookie, query);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/^Invalid query: (limit|offset)/);
    },
  );
});

describe("GET /api/ai/rag/conversations/{id}", () => {
  it("answers the detail with tier and messages oldest first", async () => {
    const { user, cookie } = await signIn();
    const c = await seedConversation(user.id, "Plans", ["What does Pro cost?", "$29.99 per month [1]"], 0, "pro");
    const res = await detail(cookie, c.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: c.id, title: "Plans", tier: "pro" });
    expect(res.body.messages).toEqual([
      {
        id: expect.any(String),
        role: "user",
        content: "What does Pro cost?",
        tokens: 19,
        model: "offline-chat",
        createdAt: expect.any(String),
      },
      {
        id: expect.any(String),
        role: "assistant",
        content: "$29.99 per month [1]",
        tokens: 20,
        model: "offline-chat",
        createdAt: expect.any(String),
      },
    ]);
  });

  it("answers 404 for another user's conversation, a missing one and a malformed id", async () => {
    const owner = await signIn();
    const { cookie } = await signIn();
    const c = await seedConversation(owner.user.id, "Private", ["q", "a"]);
    for (const id of [c.id, "00000000-0000-0000-0000-000000000000", "%27;drop"]) {
      const res = await detail(cookie, id);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "Conversation not found", code: "not_found" });
    }
  });
});

describe("DELETE /api/ai/rag/conversations?id=", () => {
  it("deletes the user's conversation and its messages", async () => {
    const { user, cookie } = await signIn();
    const c = await seedConversation(user.id, "Bye", ["q", "a", "q2", "a2"]);
    const res = await remove(cookie, `?id=${c.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, deleted: 1 });
    expect((await detail(cookie, c.id)).status).toBe(404);
    const prisma = await db();
    expect(await prisma.ragMessage.count({ where: { conversationId: c.id } })).toBe(0);
    expect((await remove(cookie, `?id=${c.id}`)).status).toBe(404);
  });

  it("answers 400 without an id", async () => {
    const { cookie } = await signIn();
    for (const query of ["", "?id=", "?other=1"]) {
      const res = await remove(cookie, query);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/^Missing id/);
    }
  });

  it("answers 404 for another user's conversation (which stays) and for a missing one", async () => {
    const owner = await signIn();
    const { cookie } = await signIn();
    const c = await seedConversation(owner.user.id, "Not yours", ["q", "a"]);
    expect((await remove(cookie, `?id=${c.id}`)).body).toEqual({ error: "Conversation not found", code: "not_found" });
    expect((await remove(cookie, "?id=00000000-0000-0000-0000-000000000000")).status).toBe(404);
    expect((await detail(owner.cookie, c.id)).status).toBe(200);
  });
});
