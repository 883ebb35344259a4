import { h } from "./dom";

/** Who a call is for, as a call entry or an event names them. */
export interface ShownUser {
  id: string;
  name?: string;
  email?: string;
}

/** The user's name and id ("Bob Builder (bob)"), or the id alone. */
export function userLabel(user: ShownUser): string {
  return user.name && user.name !== user.id ? `${user.name} (${user.id})` : user.id;
}

/** " · Bob Builder (bob)" in a span of class "user" (its title the email, else the id); "" without a user. */
export function userPart(user: ShownUser | null | undefined): HTMLElement | "" {
  return user ? h("span", { class: "user", title: user.email ?? user.id }, ` · ${userLabel(user)}`) : "";
}
