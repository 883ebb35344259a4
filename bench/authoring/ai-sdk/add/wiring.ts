import { add } from "./add";
export const tools = { add };
