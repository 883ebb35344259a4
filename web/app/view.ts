import type { Session } from "./session";

/** What a view's render() hands back to the shell. */
export interface Rendered {
  /** Settles once the view shows its first data; until then the shell marks it `aria-busy`. */
  ready?: Promise<unknown>;
  /** Stops the view's timers and streams when another view replaces it. */
  cleanup?: () => void;
}

/** One screen of the console. render() fills `root` (the shell's `main`, marked `data-view="<id>"`). */
export interface View {
  id: string;
  label: string;
  /** Shown only to keys with the admin scope (the API enforces it too). */
  admin?: boolean;
  /** Shown only to admins and to people signed in (not to call keys): a person's own things. */
  people?: boolean;
  /** Not in the navigation: reached by its link only (the OAuth consent page). */
  hidden?: boolean;
  render(root: HTMLElement, session: Session, param: string | undefined): Rendered;
}

/**
 * A page of the console that is a document of its own, linked from the navigation: the Playground,
 * whose CSP lets it call model endpoints, which the console's own document may not.
 */
export interface DocumentLink {
  id: string;
  label: string;
  /** Relative to the console's document, so it works under any path. */
  document: string;
}

/** "#/run/add" → { id: "run", param: "add" }. */
export function parseHash(hash: string): { id: string; param: string | undefined } {
  const [id = "", ...rest] = hash.replace(/^#\/?/, "").split("/");
  return { id, param: rest.length > 0 ? decodeURIComponent(rest.join("/")) : undefined };
}

export function hrefOf(id: string, param?: string): string {
  return param === undefined ? `#/${id}` : `#/${id}/${encodeURIComponent(param)}`;
}
