// A tiny element builder: text always goes in as text nodes, never as HTML, so nothing a
// server or another player sends (display names, messages) can become markup.

import { t } from "./i18n.js";

export type Child = Node | string | number | null | undefined | false;

export function h(
  tag: string,
  attrs: Record<string, string | number | boolean | undefined> = {},
  ...children: (Child | Child[])[]
): HTMLElement {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    element.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

/** A card drawn by CSS: rank in the corners and the middle, a colour class, a text
 * alternative. `button` makes it a focusable, clickable card of the hand. */
export interface Face {
  rank: string;
  suit?: string;
  tone: string;
  label: string;
}

export function card(face: Face | undefined, extra: Record<string, string | boolean | undefined> = {}, button = false): HTMLElement {
  if (face === undefined) {
    return h("span", { class: "card back", role: "img", "aria-label": extra["aria-label"] ?? t("faceDown"), ...extra });
  }
  const corner = h("span", { class: "corner", "aria-hidden": "true" }, face.rank, face.suit ? h("small", {}, face.suit) : null);
  const middle = h("span", { class: "pip", "aria-hidden": "true" }, face.suit ?? face.rank);
  const attrs = { class: `card ${face.tone}`, title: face.label, ...extra };
  return button
    ? h("button", { type: "button", "aria-label": face.label, ...attrs }, corner, middle)
    : h("span", { role: "img", "aria-label": face.label, ...attrs }, corner, middle);
}

export function row(cls: string, ...children: (Child | Child[])[]): HTMLElement {
  return h("div", { class: cls }, ...children);
}
