import type { Content } from "../../src/result";
import type { ResultLayout } from "../../src/tool-render";
import { h, type Child } from "./dom";
import { markdown, safeLink } from "./markdown";

/** Media drawn from a result: only these types, and only this large (base64 characters). */
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);
const AUDIO_TYPES = /^audio\/(wav|x-wav|mpeg|mp3|ogg|webm|mp4|aac|flac)$/;
const MAX_MEDIA_CHARS = 4_000_000;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function dataUrl(mimeType: string, data: string): string | undefined {
  return data.length <= MAX_MEDIA_CHARS && BASE64.test(data) ? `data:${mimeType};base64,${data}` : undefined;
}

function text(value: string, layout: ResultLayout | undefined): HTMLElement {
  return layout === "markdown"
    ? markdown(value)
    : h("pre", { class: "output", tabindex: 0, "aria-label": "Output text" }, value);
}

/** One content item: text (or markdown), an image, a player, a link; what cannot be shown safely is described. */
function item(content: Content, layout: ResultLayout | undefined, index: number): Child {
  switch (content.type) {
    case "text":
      return text(content.text, layout);
    case "image": {
      const src = IMAGE_TYPES.has(content.mimeType) ? dataUrl(content.mimeType, content.data) : undefined;
      return src
        ? h(
            "figure",
            {},
            h("img", { src, alt: `Image ${index + 1} of the result (${content.mimeType})` }),
            h("figcaption", { class: "muted" }, content.mimeType),
          )
        : h("p", { class: "muted" }, `[image: ${content.mimeType}, not shown]`);
    }
    case "audio": {
      const src = AUDIO_TYPES.test(content.mimeType) ? dataUrl(content.mimeType, content.data) : undefined;
      return src
        ? h(
            "figure",
            {},
            h("audio", { controls: true, src, "aria-label": `Audio ${index + 1} of the result (${content.mimeType})` }),
            h("figcaption", { class: "muted" }, content.mimeType),
          )
        : h("p", { class: "muted" }, `[audio: ${content.mimeType}, not shown]`);
    }
    case "resource_link":
      return h(
        "p",
        { class: "resource-link" },
        "Resource: ",
        safeLink(content.uri, content.name),
        h(
          "span",
          { class: "muted" },
          [
            ` ${content.uri}`,
            content.mimeType ? ` · ${content.mimeType}` : "",
            content.description ? ` — ${content.description}` : "",
          ].join(""),
        ),
      );
    case "resource":
      return "text" in content.resource
        ? h(
            "div",
            {},
            h("p", { class: "muted" }, `Resource ${content.resource.uri}`),
            text(content.resource.text, layout),
          )
        : h(
            "p",
            { class: "muted" },
            `[resource ${content.resource.uri}: ${content.resource.mimeType ?? "bytes"}, ` +
              `${content.resource.blob.length} base64 characters]`,
          );
  }
}

/** A result's content, laid out as the tool asks (markdown text, or text as it is). */
export function richContent(content: readonly Content[], layout: ResultLayout | undefined): HTMLElement {
  return h(
    "div",
    { class: "content" },
    content.map((c, i) => item(c, layout, i)),
  );
}
