import { inject } from "vitest";
import "../../servers/upstreams-context";
import { DEMO_CONFIG } from "../../../worker/demo/tenant";
import { json, request } from "./requests";

/** URLs of the upstreams test/servers/worker-setup.ts started on 127.0.0.1. */
export const upstreams = inject("upstreams");

export const uid = () => crypto.randomUUID().slice(0, 8);

/** A tenant with the demo keys (dev-admin-key, dev-call-key), the add tool and loopback egress for the test servers. */
export function adapterConfig(name: string, patch: Record<string, unknown>): string {
  return JSON.stringify({
    name,
    tools: ["add"],
    keys: DEMO_CONFIG.keys,
    egress: { allowHttpHosts: ["127.0.0.1"] },
    ...patch,
  });
}

const toolCall = (id: string, name: string, args: unknown) => ({
  id,
  type: "function",
  function: { name, arguments: JSON.stringify(args) },
});

/** POST /v1/calls/openai with the given calls; answers the tool messages and the records. */
export async function callTools(env: Record<string, unknown>, ...calls: [name: string, args: unknown][]) {
  const ids = calls.map(() => `c-${uid()}`);
  const res = await request("/v1/calls/openai", {
    env,
    body: {
      role: "assistant",
      content: null,
      tool_calls: calls.map(([name, args], i) => toolCall(ids[i]!, name, args)),
    },
  });
  if (res.status !== 200) throw new Error(`POST /v1/calls/openai answered ${res.status}: ${await res.text()}`);
  const body = await json(res);
  return { ids, messages: body.messages as { content: string }[], records: body.calls as any[] };
}
