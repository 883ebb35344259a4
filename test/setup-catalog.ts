import { loadCatalog } from "../worker/catalog";

// The production catalogue loads on first use (worker/catalog.ts): loaded before each test file, so
// tests may build tenants synchronously over it (worker/tenant.ts's default catalogue).
await loadCatalog();
