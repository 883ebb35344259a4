// Writes web/public/favicon.ico from web/public/favicon.svg: the icon drawn by Chromium at 16, 32 and
// 48 px, each kept as a PNG inside the .ico (as browsers read it). For the pages and clients that ask
// for /favicon.ico whatever a page links. Run from the repository's root after changing the SVG:
//   node scripts/run-ts.mjs scripts/favicon-ico.ts
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { chromium } from "playwright-core";

const SIZES = [16, 32, 48];
const svg = readFileSync(resolve("web/public/favicon.svg"), "utf8");
const executablePath = process.env.TOOLGATE_CHROMIUM ?? "/usr/bin/chromium";

/** An .ico file of PNG images: a 6-byte header, a 16-byte entry per image, then the images. */
function ico(images: { size: number; png: Uint8Array }[]): Uint8Array {
  const head = 6 + 16 * images.length;
  const out = new Uint8Array(head + images.reduce((sum, image) => sum + image.png.length, 0));
  const view = new DataView(out.buffer);
  view.setUint16(2, 1, true); // type: icon
  view.setUint16(4, images.length, true);
  let offset = head;
  images.forEach(({ size, png }, i) => {
    const entry = 6 + 16 * i;
    view.setUint8(entry, size); // width and height (below 256)
    view.setUint8(entry + 1, size);
    view.setUint16(entry + 4, 1, true); // colour planes
    view.setUint16(entry + 6, 32, true); // bits per pixel
    view.setUint32(entry + 8, png.length, true);
    view.setUint32(entry + 12, offset, true);
    out.set(png, offset);
    offset += png.length;
  });
  return out;
}

const browser = await chromium.launch({ executablePath, args: ["--headless", "--no-sandbox", "--disable-gpu"] });
try {
  const images = [];
  for (const size of SIZES) {
    const page = await browser.newPage({ viewport: { width: size, height: size } });
    const style = `html,body{margin:0;background:transparent}svg{display:block;width:${size}px;height:${size}px}`;
    await page.setContent(`<style>${style}</style>${svg}`);
    images.push({ size, png: await page.screenshot({ omitBackground: true, type: "png" }) });
    await page.close();
  }
  writeFileSync(resolve("web/public/favicon.ico"), ico(images));
  console.log(`web/public/favicon.ico: ${SIZES.join(", ")} px`);
} finally {
  await browser.close();
}
