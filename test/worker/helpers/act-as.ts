import { CALL_KEY_HASH } from "./requests";

/** Keys of the act-as tests' tenants: "chat-header-key" (actAs header), "chat-token-key" (actAs token). */
export const HEADER_KEY = "chat-header-key";
export const TOKEN_KEY = "chat-token-key";
/** SHA-256 of the demo admin key, "dev-admin-key". */
export const ADMIN_KEY_HASH = "df76ff796f70d2c9cb055ea6280553caa27eda26b70e01082c160de75a05a4a9";

/** The keys of a tenant whose apps act for users: the call key "k", "admin", "chat" (header) and "chat-token". */
export const ACT_AS_KEYS = [
  { name: "k", hash: CALL_KEY_HASH, scopes: ["call"] },
  { name: "admin", hash: ADMIN_KEY_HASH, scopes: ["admin"] },
  {
    name: "chat",
    hash: "4df506aaf65544de90410bb89044c2c43cecba63a4f536ea3e75f4d7f5891518",
    scopes: ["admin"],
    actAs: "header",
  },
  {
    name: "chat-token",
    hash: "9203dbcc8191e7cc8e31d43d98724ed8e7eeb39340a7bcc2743eefbce6eaf0dc",
    scopes: ["call"],
    actAs: "token",
  },
];
