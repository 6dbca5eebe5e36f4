import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareRoutes, routeCallNames, routeName, routesIn, routeTemplate } from "../../src/contracts/code-routes.js";
import { externalMountPrefixes } from "../../src/contracts/route-mounts.js";

const names = (path: string, text: string) => routesIn(path, text).map(routeName);

describe("HTTP routes declared in code", () => {
  it("reads Express and Koa routers, their chained routes and Fastify's route objects", () => {
    const express = `import express from "express";
const app = express();
const router = express.Router();
app.get("/health", (req, res) => res.send("ok"));
router.post('/orders', createOrder);
router.get(\`/orders/:id\`, auth, getOrder);
router.delete("/orders/:id?", removeOrder);
app.all("/legacy/*", legacy);
router.route("/items/:sku").get(getItem).put(putItem);
app.use("/api", router);
const r = await axios.get("/upstream/x", { params });
fastify.route({ method: ["GET", "HEAD"], url: "/pets/:petId", handler: (req, reply) => { reply.send({}) } });
`;
    // (the router is mounted under /api in the same file)
    expect(names("src/app.ts", express)).toEqual([
      "ANY /legacy/{}",
      "DELETE /api/orders/{id}",
      "GET /api/items/{sku}",
      "GET /api/orders/{id}",
      "GET /health",
      "GET /pets/{petId}",
      "HEAD /pets/{petId}",
      "POST /api/orders",
      "PUT /api/items/{sku}",
    ]);
    const health = routesIn("src/app.ts", express).find((r) => r.path === "/health");
    expect(health?.line).toBe(4);
    expect(routesIn("src/app.ts", express).find((r) => r.path === "/api/orders")?.handler).toBe("createOrder");
    // Mounts of mounts, and Hono's app.route(prefix, sub):
    const nested = `import { Hono } from "hono";\nconst books = new Hono();\nbooks.get("/:id", show);\nconst v1 = new Hono();\nv1.route("/books", books);\napp.route("/v1", v1);\n`;
    expect(names("src/index.ts", nested)).toEqual(["GET /v1/books/{id}"]);
  });

  it("reads Hono and NestJS controllers", () => {
    const hono = `import { Hono } from "hono";\nconst app = new Hono();\napp.get("/books/:id", (c) => c.json({}));\napp.post("/books", create);\n`;
    expect(names("api/index.js", hono)).toEqual(["GET /books/{id}", "POST /books"]);
    const nest = `import { Controller, Get, Post, Param } from "@nestjs/common";
@Controller("cats")
export class CatsController {
  @Get()
  findAll() {}
  @Get(":id")
  @UseGuards(AuthGuard)
  async findOne(@Param("id") id: string) {}
  @Post()
  create() {}
}
@Controller({ path: "dogs" })
export class DogsController {
  @Get("")
  list() {}
}
`;
    expect(names("src/cats.controller.ts", nest)).toEqual(["GET /cats", "GET /cats/{id}", "GET /dogs", "POST /cats"]);
    expect(routesIn("src/cats.controller.ts", nest).find((r) => r.path === "/cats/{id}")?.handler).toBe("findOne");
  });

  it("reads FastAPI, Flask and Django, with a router's or blueprint's prefix", () => {
    const fastapi = `from fastapi import APIRouter, FastAPI
app = FastAPI()
router = APIRouter(prefix="/v1/users", tags=["users"])

@app.get("/health")
def health():
    return {}

@router.get("/{user_id}")
async def read_user(user_id: int):
    ...

@router.api_route("/bulk", methods=["POST", "PUT"])
def bulk():
    ...
`;
    expect(names("app/main.py", fastapi)).toEqual(["GET /health", "GET /v1/users/{user_id}", "POST /v1/users/bulk", "PUT /v1/users/bulk"]);
    expect(routesIn("app/main.py", fastapi).find((r) => r.path === "/v1/users/{user_id}")?.handler).toBe("read_user");
    const flask = `from flask import Blueprint, Flask
bp = Blueprint("orders", __name__, url_prefix="/orders")

@bp.route("/<int:order_id>", methods=["GET", "DELETE"])
def order(order_id):
    pass

@bp.route("/")
def index():
    pass
`;
    expect(names("app/orders.py", flask)).toEqual(["DELETE /orders/{order_id}", "GET /orders", "GET /orders/{order_id}"]);
    const django = `from django.urls import include, path, re_path
from . import views
urlpatterns = [
    path("articles/<int:year>/", views.year_archive),
    path("api/", include("api.urls")),
    re_path(r"^legacy/(?P<id>[0-9]+)/$", views.legacy),
]
`;
    expect(names("blog/urls.py", django)).toEqual(["ANY /articles/{year}"]);
  });

  it("reads nothing from a file that imports no server framework, or from a client's calls", () => {
    expect(names("src/client.ts", `import axios from "axios";\naxios.get("/orders/1", { params });\napi.post("/orders", body);\n`)).toEqual([]);
    expect(names("src/server.ts", `import express from "express";\nconst c = httpClient.get("/orders", opts);\nconst x = cache.get("/not/a/route");\n`)).toEqual([]);
    expect(names("README.md", `app.get("/x", h)`)).toEqual([]);
  });

  it("a route gone is breaking, one added compatible; a route moved is no change", () => {
    const before = routesIn("a.ts", `import express from "express";\napp.get("/a", h);\napp.get("/b/:id", h);\n`);
    const after = routesIn("a.ts", `import express from "express";\n\n\napp.get("/b/:id", h);\napp.post("/c", h);\n`);
    expect(compareRoutes(before, after).map((c) => [c.qualified_name, c.change, c.compatibility])).toEqual([
      ["GET /a", "removed", "breaking"],
      ["POST /c", "added", "compatible"],
    ]);
    expect(routeCallNames("GET /b/{id}")).toEqual(["GET /b/{}"]);
    expect(routeCallNames("ANY /b")).toEqual(["DELETE /b", "GET /b", "HEAD /b", "OPTIONS /b", "PATCH /b", "POST /b", "PUT /b"]);
  });

  it("normalises each framework's parameters", () => {
    expect(routeTemplate("/a/:id/b/:slug?")).toBe("/a/{id}/b/{slug}");
    expect(routeTemplate("a/<int:pk>/<name>/")).toBe("/a/{pk}/{name}");
    expect(routeTemplate("/a/{id}")).toBe("/a/{id}");
    expect(routeTemplate("/a/${x}")).toBe(null);
  });

  it("never throws and stays bounded on hostile text", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 2000 }), (s) => {
        for (const p of ["a.ts", "a.py", "urls.py"]) {
          const text = `${p.endsWith(".py") ? "from flask import Flask\nfrom django.urls import path\n" : 'import express from "express";\n'}${s}`;
          const r = routesIn(p, text);
          for (const x of r) expect(x.path.startsWith("/")).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("a router mounted by another file of the repo", () => {
  const tree = (files: Record<string, string>): string => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "comity-mounts-"));
    for (const [p, t] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
      fs.writeFileSync(path.join(root, p), t);
    }
    return root;
  };
  const ROUTER = 'import { Router } from "express";\nconst router = Router();\nrouter.get("/:id", (q, s) => s.end());\nexport default router;\n';

  it("is served under the prefixes its mounts give it: imported, required, behind a middleware, through a router mounted in turn", () => {
    const root = tree({
      "src/routes/orders.ts": ROUTER,
      "src/routes/index.ts": 'import { Router } from "express";\nimport orders from "./orders.js";\nexport const api = Router();\napi.use("/orders", auth, orders);\n',
      "src/server.ts": 'import express from "express";\nimport { api } from "./routes/index.js";\nconst app = express();\nconst v1 = express.Router();\nv1.use("/", api);\napp.use("/v1", v1);\n',
      "src/legacy.js": 'const express = require("express");\nconst app = express();\napp.use("/legacy/orders", require("./routes/orders"));\n',
      "src/other.ts": 'import express from "express";\nimport orders from "./elsewhere/orders.js";\nconst app = express();\napp.use("/nope", orders);\n',
    });
    try {
      const prefixes = externalMountPrefixes(root, "src/routes/orders.ts");
      expect(prefixes).toEqual(["/legacy/orders", "/v1/orders"]);
      expect(routesIn("src/routes/orders.ts", ROUTER, { prefixes }).map((r) => `${r.method} ${r.path}`)).toEqual(["GET /legacy/orders/{id}", "GET /v1/orders/{id}"]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it("is read as written where no file mounts it", () => {
    const root = tree({ "src/stock.ts": ROUTER, "src/app.ts": 'import express from "express";\nconst app = express();\napp.use("/v1/stock", express.static("x"));\n' });
    try {
      expect(externalMountPrefixes(root, "src/stock.ts")).toEqual([]);
      expect(routesIn("src/stock.ts", ROUTER, { prefixes: [] }).map((r) => `${r.method} ${r.path}`)).toEqual(["GET /{id}"]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
