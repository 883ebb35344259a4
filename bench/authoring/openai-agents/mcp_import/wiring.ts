import { Agent } from "@openai/agents-core";
import { githubServer } from "./github";
export const agent = new Agent({ name: "assistant", mcpServers: [await githubServer()] });
