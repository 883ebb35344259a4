/**
 * Tenant configurations of growing size for bench/startup-growth.ts: N declared HTTP adapter tools
 * (the shape of docs/adapters.md: an input schema, a URL template, a query template, a policy) over
 * ten upstream origins, with the demo's public keys so the bench can call GET /v1/tools/openai.
 */
import type { TenantConfigInput } from "../../worker/tenant/config";
import { DEMO_CONFIG } from "../../worker/demo/tenant";

export function httpToolsConfig(count: number): TenantConfigInput {
  const http = Array.from({ length: count }, (_, i) => {
    const n = String(i).padStart(4, "0");
    return {
      name: `api_${n}_get_item`,
      description: `Item ${n} of the inventory API: current stock, price and location of one item by id`,
      input: {
        type: "object",
        properties: {
          id: { type: "string", minLength: 1, maxLength: 64 },
          fields: { type: "string", enum: ["all", "stock", "price"] },
          limit: { type: "integer", minimum: 1, maximum: 100 },
        },
        required: ["id"],
        additionalProperties: false,
      },
      method: "GET" as const,
      url: `https://api${i % 10}.inventory.example/v1/items/${n}/{id}`,
      query: { fields: "{fields}", limit: "{limit}", lang: "en" },
      headers: { accept: "application/json" },
      timeoutMs: 5000,
      retry: { attempts: 3 },
      readOnly: true,
      risk: "low" as const,
    };
  });
  return { name: "growth", tools: [], keys: DEMO_CONFIG.keys, http };
}
