import { Agent } from "@openai/agents-core";
import { getWeather } from "./get-weather";
export const agent = new Agent({ name: "assistant", tools: [getWeather] });
