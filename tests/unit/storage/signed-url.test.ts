import { describe, expect, it } from "vitest";
import { contentDisposition } from "@/lib/storage/content-disposition";
import { checkLocalFileToken, signLocalFileUrl } from "@/lib/storage/signed-url";
import { isValidStorageKey, newStorageKey } from "@/lib/storage/storage-key";
import { setEnv } from "@/tests/helpers/env";

const id = "6f1c1f9e-8a41-4d7b-9a53-2f0d8f5c9b11";

function parts(url: string) {
  const u = new URL(url);
  return { expires: u.searchParams.get("expires"), token: u.searchParams.get("token"), path: u.pathname };
}

describe("local signed file urls", () => {
  it("is valid until it expires, then expired", () => {
    const now = Date.UTC(2026, 0, 1);
    const { expires, token, path } = parts(signLocalFileUrl("https://app.test", id, 900, now));
    expect(path).toBe(`/api/files/${id}/content`);
    expect(checkLocalFileToken(id, expires, token, now)).toBe("valid");
    expect(checkLocalFileToken(id, expires, token, now + 900_000)).toBe("valid");
    expect(checkLocalFileToken(id, expires, token, now + 901_000)).toBe("expired");
  });

  it("is bound to the file id, the expiry and the secret", () => {
    const { expires, token } = parts(signLocalFileUrl("https://app.test", id, 900));
    expect(checkLocalFileToken("00000000-0000-4000-8000-000000000000", expires, token)).toBe("invalid");
    expect(checkLocalFileToken(id, String(Number(expires) + 1), token)).toBe("invalid");
    expect(checkLocalFileToken(id, expires, null)).toBe("invalid");
    expect(checkLocalFileToken(id, "abc", token)).toBe("invalid");
    expect(checkLocalFileToken(id, expires, "zz")).toBe("invalid");
    const restore = setEnv({ FILE_URL_SECRET: "another-secret" });
    try {
      expect(checkLocalFileToken(id, expires, token)).toBe("invalid");
    } finally {
      restore();
    }
  });
});

describe("storage keys and content disposition", () => {
  it("keys are random and never carry a file name", () => {
    const a = newStorageKey("user-1");
    expect(a).toMatch(/^uploads\/user-1\/[0-9a-f-]{36}$/);
    expect(newStorageKey("user-1")).not.toBe(a);
    expect(isValidStorageKey(a)).toBe(true);
    expect(isValidStorageKey("../etc/passwd")).toBe(false);
    expect(isValidStorageKey("uploads//x")).toBe(false);
  });

  it("quotes file names safely", () => {
    expect(contentDisposition('a "quoted" näme.pdf')).toBe(
      `attachment; filename="a _quoted_ n_me.pdf"; filename*=UTF-8''a%20%22quoted%22%20n%C3%A4me.pdf`,
    );
  });
});
