import { app } from "./app";

export { ToolgateService } from "./entrypoint";

export default app;
