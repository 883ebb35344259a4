/**
 * One step further down a path, written as validation messages write paths: `a.b[2]["odd key"]`
 * ("" is the root). Keys that are not identifiers are quoted, so a path reads back unambiguously.
 */
export function joinPath(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  if (/^[A-Za-z_$][\w$]*$/.test(key)) return path === "" ? key : `${path}.${key}`;
  return `${path}[${JSON.stringify(key)}]`;
}
