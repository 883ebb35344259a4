// Writes every generated module (the library modules and the catalogue of tools/): what `npm install`
// and `npm run typecheck` need before tsc reads the Worker. Usage: node scripts/generated-modules.mjs
import { useProjectNode, writeGeneratedModules } from "./ts-entry.mjs";

await useProjectNode();
await writeGeneratedModules();
