/** The parts of a tenant's configuration a connect's scopes come from. */
export interface ScopeSources {
  connections?: Readonly<Record<string, { scopes: readonly string[] }>> | undefined;
  http: readonly unknown[];
  openapi: readonly unknown[];
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The scopes a connect asks for: the connection's own and every scope a tool acting through it needs
 * (the adapter sections were checked when the tenant was built), so one connect serves every tool.
 */
export function connectScopes(config: ScopeSources, name: string): string[] {
  const scopes = new Set(config.connections?.[name]?.scopes ?? []);
  for (const declaration of [...config.http, ...config.openapi]) {
    const use = isObject(declaration) ? declaration.connection : undefined;
    if (isObject(use) && use.name === name && Array.isArray(use.scopes))
      for (const scope of use.scopes) if (typeof scope === "string") scopes.add(scope);
  }
  return [...scopes];
}
