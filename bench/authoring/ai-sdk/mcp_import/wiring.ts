import { githubTools } from "./github";
export const tools = { ...(await githubTools()) };
