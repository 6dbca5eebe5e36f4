import { describe, expect, it } from "vitest";
import { redactUserinfo } from "../../src/api/redact-url.js";
import { redactUrl } from "../../src/store/database.js";

describe("URLs fit to print", () => {
  it("mask a user name and password, in API and database URLs alike, and leave the rest", () => {
    expect(redactUserinfo("http://alice:s3cret@api.example:7373/base")).toBe("http://***@api.example:7373/base");
    expect(redactUserinfo("https://token@api.example")).toBe("https://***@api.example");
    expect(redactUserinfo("http://127.0.0.1:7373")).toBe("http://127.0.0.1:7373");
    expect(redactUrl("postgres://comity:pw@db.internal:5432/comity")).toBe("postgres://***@db.internal:5432/comity");
    expect(redactUserinfo("not a url //bob:pw@host")).toBe("not a url //***@host");
  });
});
