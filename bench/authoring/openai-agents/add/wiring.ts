import { Agent } from "@openai/agents-core";
import { add } from "./add";
export const agent = new Agent({ name: "assistant", tools: [add] });
