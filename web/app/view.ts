import type { Session } from "./session";

/** One screen of the console. render() fills `root` and returns a cleanup (timers, streams). */
export interface View {
  id: string;
  label: string;
  /** Shown only to keys with the admin scope (the API enforces it too). */
  admin?: boolean;
  render(root: HTMLElement, session: Session, param: string | undefined): (() => void) | void;
}

/** "#/run/add" → { id: "run", param: "add" }. */
export function parseHash(hash: string): { id: string; param: string | undefined } {
  const [id = "", ...rest] = hash.replace(/^#\/?/, "").split("/");
  return { id, param: rest.length > 0 ? decodeURIComponent(rest.join("/")) : undefined };
}

export function hrefOf(id: string, param?: string): string {
  return param === undefined ? `#/${id}` : `#/${id}/${encodeURIComponent(param)}`;
}
