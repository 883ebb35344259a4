import * as v from "valibot";
import { toolError } from "../../src/errors";
import type { JsonSchema } from "../../src/json";
import { jsonSchemaValidator } from "../../src/json-schema";
import { sleep } from "../../src/retry";
import { assembleTool, defineTool, richResult, type Tool } from "../../src/tool";
import type { Validator } from "../../src/validation";

/**
 * The tools the MCP conformance suite calls by name (`npm run test:conformance`). Test fixtures: in
 * the catalogue so a configuration can list them, offered by no tenant unless its config does
 * (scripts/conformance/tenant.json).
 */

const RED_PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";
/** 8 silent samples of 16-bit mono PCM at 8 kHz. */
const SILENT_WAV = "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA";
const NO_ARGS = v.object({});

/** Waits ms; a cancelled call stops at once with the signal's reason. */
async function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (!(await sleep(ms, signal))) throw signal.reason;
}

const simpleText = defineTool({
  name: "test_simple_text",
  description: "Returns a fixed text (MCP conformance fixture).",
  input: NO_ARGS,
  policy: { readOnly: true },
  run: () => "This is a simple text response for testing.",
});

const imageContent = defineTool({
  name: "test_image_content",
  description: "Returns a 1x1 PNG (MCP conformance fixture).",
  input: NO_ARGS,
  policy: { readOnly: true },
  run: () => richResult([{ type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" }]),
});

const audioContent = defineTool({
  name: "test_audio_content",
  description: "Returns a short WAV (MCP conformance fixture).",
  input: NO_ARGS,
  policy: { readOnly: true },
  run: () => richResult([{ type: "audio", data: SILENT_WAV, mimeType: "audio/wav" }]),
});

const embeddedResource = defineTool({
  name: "test_embedded_resource",
  description: "Returns an embedded text resource (MCP conformance fixture).",
  input: NO_ARGS,
  policy: { readOnly: true },
  run: () =>
    richResult([{ type: "resource", resource: { uri: "test://embedded-resource", mimeType: "text/plain", text: "This is an embedded resource content." } }]),
});

const mixedContent = defineTool({
  name: "test_multiple_content_types",
  description: "Returns text, an image and a resource (MCP conformance fixture).",
  input: NO_ARGS,
  policy: { readOnly: true },
  run: () =>
    richResult([
      { type: "text", text: "Multiple content types test:" },
      { type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" },
      { type: "resource", resource: { uri: "test://mixed-content-resource", mimeType: "application/json", text: '{"test":"data","value":123}' } },
    ]),
});

const withLogging = defineTool({
  name: "test_tool_with_logging",
  description: "Logs three info messages 50 ms apart (MCP conformance fixture).",
  input: NO_ARGS,
  policy: { readOnly: true },
  async run(_args, ctx) {
    ctx.log.info("Tool execution started");
    await pause(50, ctx.signal);
    ctx.log.info("Tool processing data");
    await pause(50, ctx.signal);
    ctx.log.info("Tool execution completed");
    return "Logging test completed.";
  },
});

const withProgress = defineTool({
  name: "test_tool_with_progress",
  description: "Reports progress 0, 50 and 100 of 100, 50 ms apart (MCP conformance fixture).",
  input: NO_ARGS,
  policy: { readOnly: true },
  async run(_args, ctx) {
    for (const progress of [0, 50, 100]) {
      if (progress > 0) await pause(50, ctx.signal);
      ctx.progress({ progress, total: 100 });
    }
    return "Progress test completed.";
  },
});

const errorHandling = defineTool({
  name: "test_error_handling",
  description: "Always fails (MCP conformance fixture).",
  input: NO_ARGS,
  run: () => {
    throw toolError("tool_error", "This tool intentionally returns an error for testing");
  },
});

const SCHEMA_2020_12: JsonSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: { address: { type: "object", properties: { street: { type: "string" }, city: { type: "string" } } } },
  properties: { name: { type: "string" }, address: { $ref: "#/$defs/address" } },
  additionalProperties: false,
};

let validate2020: Validator<unknown> | undefined;

/** A JSON Schema tool whose $schema, $defs and additionalProperties must reach tools/list unchanged. */
const jsonSchema2020 = assembleTool({
  name: "json_schema_2020_12_tool",
  description: "Tool with JSON Schema 2020-12 features (MCP conformance fixture).",
  source: "json-schema",
  policy: { readOnly: true },
  inputSchema: () => SCHEMA_2020_12,
  // Compiled on first call, not at startup.
  validateInput: (value) => (validate2020 ??= jsonSchemaValidator(SCHEMA_2020_12))(value),
  run: (args) => ({ received: args as never }),
});

export const MCP_FIXTURE_TOOLS: readonly Tool[] = [
  simpleText,
  imageContent,
  audioContent,
  embeddedResource,
  mixedContent,
  withLogging,
  withProgress,
  errorHandling,
  jsonSchema2020,
];
