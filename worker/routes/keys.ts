import type { Context } from "hono";
import { Hono } from "../hono-lazy";
import * as v from "valibot";
import { codeModeField } from "../code-mode/modes";
import { ACT_AS } from "../identity/settings";
import { SCOPES } from "../tenant/config";
import { callDurable } from "../durable/call";
import type { AppEnv } from "../env";
import { ApiError } from "../errors";
import { tenantKeys, type KeysAddress, type KeysNamespace } from "../keys/address";
import { forgetKeys } from "../keys/cache";
import { readBody, RulesFields } from "../keys/rules";
import { newKeyId, newKeySecret } from "../keys/secret";
import type { KeyInfo } from "../keys/types";
import { requireScope } from "../middleware/auth";

const CreateBody = v.strictObject({
  name: v.pipe(v.string(), v.regex(/^[a-zA-Z0-9_.-]{1,64}$/, "must be 1-64 letters, digits, _ . or -")),
  scopes: v.pipe(
    v.array(v.picklist(SCOPES, 'must be "call" or "admin"')),
    v.minLength(1, "must name at least one scope"),
  ),
  /** May act for its app's users: "token" (signed user tokens) or "header" (also plain user ids). */
  actAs: v.optional(v.picklist(ACT_AS, 'must be "token" or "header"')),
  /** Its callers' code mode; absent: the tenant's default. */
  codeMode: codeModeField,
  ...RulesFields,
});

const RotateBody = v.strictObject({
  /** How long the old secret keeps working, 0-7 days; default 1 hour. */
  graceSeconds: v.optional(
    v.pipe(
      v.number(),
      v.integer("must be an integer"),
      v.minValue(0, "must be at least 0"),
      v.maxValue(7 * 24 * 3600, "must be at most 7 days"),
    ),
    3600,
  ),
});

function keysOf(c: Context<AppEnv>): KeysAddress {
  return tenantKeys({ KEYS: c.env.KEYS as unknown as KeysNamespace }, c.var.tenant.name);
}

/** One change to the tenant's keys; this isolate sees it at once, others within KEY_SET_TTL_MS. */
async function change<T>(c: Context<AppEnv>, run: (keys: ReturnType<KeysAddress["object"]>) => Promise<T>): Promise<T> {
  const keys = keysOf(c);
  const outcome = await callDurable(() => keys.object(), run, { tries: 1 });
  forgetKeys(keys.tenant);
  return outcome;
}

function found(id: string, key: KeyInfo | "not_found"): KeyInfo {
  if (key === "not_found") throw new ApiError(404, "not_found", `No active key ${id}.`);
  return key;
}

/**
 * Keys managed without a redeploy (admin): create (the secret is answered once; only its SHA-256 is
 * stored), list, rotate (a new secret; the old one works for the grace period) and revoke. Keys of
 * the bundled configuration are listed beside them and change only with a deploy.
 */
export const keys = new Hono<AppEnv>()
  .use(requireScope("admin"))
  .get("/", async (c) => {
    const stored = await callDurable(
      () => keysOf(c).object(),
      (stub) => stub.list(),
    );
    const configured = c.var.tenant.config.keys.map((key) => ({
      name: key.name,
      scopes: key.scopes,
      ...(key.actAs ? { actAs: key.actAs } : {}),
      ...(key.codeMode ? { codeMode: key.codeMode } : {}),
      source: "config" as const,
    }));
    return c.json({ keys: [...configured, ...stored.map((key) => ({ ...key, source: "runtime" as const }))] });
  })
  .post("/", async (c) => {
    const input = await readBody(c.req.raw, CreateBody);
    if ((input.codeMode === "on" || input.codeMode === "only") && !c.var.tenant.config.codeMode)
      throw new ApiError(
        400,
        "invalid_body",
        `codeMode: "${input.codeMode}" needs the tenant's codeMode block (docs/code-mode.md).`,
      );
    if (c.var.tenant.config.keys.some((key) => key.name === input.name)) {
      throw new ApiError(409, "name_taken", `A key named "${input.name}" is in the tenant's configuration.`);
    }
    const { secret, hash } = await newKeySecret();
    const key = await change(c, (stub) =>
      stub.create(newKeyId(), hash, { ...input, scopes: [...new Set(input.scopes)] }),
    );
    if (key === "name_taken")
      throw new ApiError(
        409,
        "name_taken",
        `A key named "${input.name}" exists (names of revoked keys stay taken: records name them).`,
      );
    return c.json({ key, secret }, 201);
  })
  .post("/:id/rotate", async (c) => {
    const id = c.req.param("id");
    const { graceSeconds } = await readBody(c.req.raw, RotateBody);
    const { secret, hash } = await newKeySecret();
    const key = found(id, await change(c, (stub) => stub.rotate(id, hash, graceSeconds * 1000)));
    return c.json({ key, secret });
  })
  .post("/:id/revoke", async (c) => {
    const id = c.req.param("id");
    return c.json({ key: found(id, await change(c, (stub) => stub.revoke(id))) });
  });
