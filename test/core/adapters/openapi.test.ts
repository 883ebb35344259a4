import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiTools } from "../../../src/adapters/openapi";
import { createEgressFetch } from "../../../src/egress";
import { executeCall } from "../../../src/pipeline/execute";
import { createRegistry } from "../../../src/registry";
import type { Tool } from "../../../src/tool";
import { startHttpApi, type HttpApi } from "../../servers/http-api";

let api: HttpApi;
beforeAll(async () => {
  api = await startHttpApi();
});
afterAll(() => api.close());

const document = (server: string) => ({
  openapi: "3.0.3",
  info: { title: "Pets", version: "1" },
  servers: [{ url: `${server}/{prefix}`, variables: { prefix: { default: "echo" } } }],
  paths: {
    "/pets/{petId}": {
      parameters: [{ name: "petId", in: "path", required: true, schema: { type: "integer", minimum: 1 } }],
      get: {
        operationId: "getPet",
        summary: "Get a pet",
        parameters: [
          {
            name: "fields",
            in: "query",
            schema: { type: "array", items: { type: "string" } },
            description: "Fields to return",
          },
          { $ref: "#/components/parameters/Trace" },
        ],
      },
      delete: { summary: "no operationId: skipped" },
    },
    "/pets": {
      post: {
        operationId: "createPet",
        requestBody: {
          required: true,
          content: { "application/json": { schema: { $ref: "#/components/schemas/NewPet" } } },
        },
      },
    },
    "/pets/{petId}/photo": {
      post: {
        operationId: "uploadPhoto",
        parameters: [{ name: "petId", in: "path", required: true, schema: { type: "integer" } }],
        requestBody: { content: { "multipart/form-data": { schema: { type: "object" } } } },
      },
    },
  },
  components: {
    parameters: { Trace: { name: "X-Trace", in: "header", schema: { type: "string" } } },
    schemas: {
      NewPet: {
        type: "object",
        required: ["name"],
        properties: {
          name: { type: "string" },
          nickname: { type: "string", nullable: true },
          tags: { type: "array", items: { $ref: "#/components/schemas/Tag" } },
          default: { type: "boolean" },
        },
      },
      Tag: {
        type: "object",
        properties: { label: { type: "string" }, age: { type: "number", minimum: 0, exclusiveMinimum: true } },
      },
      Unused: { type: "string" },
    },
  },
});

// The test API's own origin: plain http to this port of 127.0.0.1 only.
const egress = () => createEgressFetch({ allowHosts: [], allowHttpHosts: [api.url] });
const run = (tools: Tool[], name: string, args: unknown) =>
  executeCall(
    { id: `c_${Math.random()}`, name, arguments: args },
    { registry: createRegistry(tools), fetch: egress() },
  );

describe("openApiTools", () => {
  it("makes one tool per operation with an operationId, skipping non-JSON bodies", () => {
    const tools = openApiTools({ name: "pets", document: document(api.url), prefix: "pets_" });
    expect(tools.map((t) => [t.name, t.source])).toEqual([
      ["pets_getPet", "openapi"],
      ["pets_createPet", "openapi"],
    ]);
    expect(tools[0]?.description).toBe("Get a pet");
    expect(tools[1]?.description).toBe("POST /pets");
  });

  it("builds the input schema from parameters and the JSON body, with reachable components as $defs", () => {
    const [getPet, createPet] = openApiTools({ name: "pets", document: document(api.url) });
    expect(getPet?.inputSchema).toEqual({
      type: "object",
      properties: {
        petId: { type: "integer", minimum: 1 },
        fields: { type: "array", items: { type: "string" }, description: "Fields to return" },
        "X-Trace": { type: "string" },
      },
      required: ["petId"],
      additionalProperties: false,
    });
    const schema = createPet?.inputSchema as {
      properties: { body: unknown };
      $defs: Record<string, unknown>;
      required: string[];
    };
    expect(schema.properties.body).toEqual({ $ref: "#/$defs/NewPet" });
    expect(Object.keys(schema.$defs).sort()).toEqual(["NewPet", "Tag"]);
    expect(schema.$defs.NewPet).toMatchObject({ properties: { nickname: { type: ["string", "null"] } } });
    expect(schema.$defs.Tag).toMatchObject({ properties: { age: { type: "number", exclusiveMinimum: 0 } } });
    expect(schema.required).toEqual(["body"]);
  });

  it("calls the operation: path, query and header parameters, JSON body", async () => {
    const tools = openApiTools({ name: "pets", document: document(api.url) });
    const got = await run(tools, "getPet", { petId: 7, fields: ["a", "b"], "X-Trace": "t1" });
    expect(got.ok && got.output.structured).toMatchObject({
      method: "GET",
      path: "/echo/pets/7",
      query: [
        ["fields", "a"],
        ["fields", "b"],
      ],
      headers: { "x-trace": "t1" },
    });
    const created = await run(tools, "createPet", { body: { name: "Rex", nickname: null, tags: [{ label: "dog" }] } });
    expect(created.ok && created.output.structured).toMatchObject({
      method: "POST",
      path: "/echo/pets",
      body: '{"name":"Rex","nickname":null,"tags":[{"label":"dog"}]}',
    });
  });

  it("validates arguments with the converted schema (refs and 3.0 dialect)", async () => {
    const tools = openApiTools({ name: "pets", document: document(api.url) });
    const bad = await run(tools, "createPet", { body: { name: "Rex", tags: [{ age: 0 }] } });
    expect(!bad.ok && bad.error.code).toBe("invalid_arguments");
    expect(!bad.ok && bad.error.issues?.map((i) => i.path)).toEqual(["body.tags[0].age"]);
    const missing = await run(tools, "getPet", {});
    expect(!missing.ok && missing.error.code).toBe("invalid_arguments");
  });

  it("selects operations and fails clearly on a missing or unsupported one", () => {
    expect(
      openApiTools({ name: "pets", document: document(api.url), operations: ["createPet"] }).map((t) => t.name),
    ).toEqual(["createPet"]);
    expect(() => openApiTools({ name: "pets", document: document(api.url), operations: ["nope"] })).toThrow(
      /OpenAPI "pets": invalid operations: no operation "nope"/,
    );
    expect(() => openApiTools({ name: "pets", document: document(api.url), operations: ["uploadPhoto"] })).toThrow(
      /operation "uploadPhoto": cannot be a tool: its request body is not JSON/,
    );
  });

  it("rejects bad documents and declarations naming the field", () => {
    expect(() => openApiTools({ name: "x", document: { swagger: "2.0" } })).toThrow(
      /OpenAPI "x": invalid document.openapi/,
    );
    expect(() =>
      openApiTools({ name: "x", document: { openapi: "3.1.0", servers: [{ url: "/api" }], paths: {} } }),
    ).toThrow(/invalid baseUrl/);
    expect(() => openApiTools({ name: "x", document: { openapi: "3.1.0" }, baseUrl: "nope" } as never)).toThrow(
      /OpenAPI "x": invalid baseUrl/,
    );
    const broken = {
      openapi: "3.1.0",
      servers: [{ url: "https://a.example" }],
      paths: { "/a": { get: { operationId: "a", parameters: [{ $ref: "#/components/parameters/Missing" }] } } },
    };
    expect(() => openApiTools({ name: "x", document: broken })).toThrow(/does not resolve/);
  });
});

describe("openApiTools: response schemas", () => {
  // The echo endpoint answers { method, path, query, headers, body }: Echo matches it, Pet
  // (which needs a name) does not.
  const described = () => {
    const doc = document(api.url);
    const get = doc.paths["/pets/{petId}"].get as Record<string, unknown>;
    get.responses = {
      "404": { description: "none", content: { "application/json": { schema: { type: "object" } } } },
      "200": {
        description: "echo",
        content: { "application/json": { schema: { $ref: "#/components/schemas/Echo" } } },
      },
    };
    const post = doc.paths["/pets"].post as Record<string, unknown>;
    post.responses = { "201": { $ref: "#/components/responses/Created" } };
    const components = doc.components as Record<string, Record<string, unknown>>;
    components.schemas!.Echo = {
      type: "object",
      required: ["method", "path"],
      properties: { method: { type: "string" }, path: { type: "string" } },
    };
    components.schemas!.Pet = {
      type: "object",
      required: ["name"],
      properties: { name: { type: "string" }, tags: { type: "array", items: { $ref: "#/components/schemas/Tag" } } },
    };
    components.responses = {
      Created: {
        description: "the pet",
        content: { "application/json": { schema: { $ref: "#/components/schemas/Pet" } } },
      },
    };
    return doc;
  };

  it("gives each operation the output schema of its 2xx JSON response (a component inlined, its references as $defs)", () => {
    const [getPet, createPet] = openApiTools({ name: "pets", document: described() });
    expect(getPet?.outputSchema).toEqual({
      type: "object",
      required: ["method", "path"],
      properties: { method: { type: "string" }, path: { type: "string" } },
      $defs: { Echo: expect.any(Object) },
    });
    expect(createPet?.outputSchema).toMatchObject({
      type: "object",
      required: ["name"],
      $defs: { Pet: expect.any(Object), Tag: expect.any(Object) },
    });
    expect(openApiTools({ name: "pets", document: document(api.url) })[0]?.outputSchema).toBeUndefined();
  });

  it("checks every answer against it: a match succeeds, a wrong shape is an upstream_error", async () => {
    const tools = openApiTools({ name: "pets", document: described() });
    const got = await run(tools, "getPet", { petId: 7 });
    expect(got.ok && got.output.structured).toMatchObject({ method: "GET", path: "/echo/pets/7" });
    const created = await run(tools, "createPet", { body: { name: "Rex" } });
    expect(!created.ok && created.error).toMatchObject({
      code: "upstream_error",
      issues: [{ path: "name", message: expect.stringMatching(/name/) }],
    });
    expect(!created.ok && created.error.message).toMatch(/'s answer does not match the tool's output schema: .*"name"/);
  });

  it("ignores the document's response schemas with outputSchemas: false", async () => {
    const tools = openApiTools({ name: "pets", document: described(), outputSchemas: false });
    expect(tools.map((tool) => tool.outputSchema)).toEqual([undefined, undefined]);
    const created = await run(tools, "createPet", { body: { name: "Rex" } });
    expect(created.ok).toBe(true);
  });
});
