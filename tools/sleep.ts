import { sleepTool } from "./lib/sleep";

export default sleepTool("sleep", "Sleep for ms milliseconds. Sequential: one sleep at a time across the tenant.", 1);
