/**
 * Small hand-written SVG charts for the Overview: bars over time and a line over time. Each is an
 * image with a name that says what it shows (role="img", aria-label), its colours from the theme's
 * custom properties (styles.css .chart), so it reads in light and dark alike.
 */

const NS = "http://www.w3.org/2000/svg";
const WIDTH = 600;
const HEIGHT = 150;
/** Room at the top for the largest value's label, and at the bottom for the times. */
const TOP = 16;
const BOTTOM = 18;

/** An SVG element with its attributes (and text). */
export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | number>,
  text?: string,
): SVGElementTagNameMap[K] {
  const element = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  if (text !== undefined) element.textContent = text;
  return element;
}

/** One point of a series: when its step starts, and its value(s). */
export interface ChartPoint {
  at: number;
  value: number | null;
  /** For bars: the part of the bar drawn as bad (errors among the calls). */
  bad?: number;
}

export interface ChartOptions {
  /** The chart's accessible name: what it shows and its totals. */
  label: string;
  /** How a value reads on the axis ("12", "340 ms", "5%"). */
  format: (value: number) => string;
  /** The step's length: bars are this wide in time. */
  stepMs: number;
  /** The highest value the axis shows at least (e.g. 1 for a rate). */
  minMax?: number;
}

const clock = (ms: number, stepMs: number) =>
  new Date(ms).toLocaleString(undefined, {
    hour12: false,
    ...(stepMs >= 3_600_000 ? { month: "short", day: "numeric" } : {}),
    hour: "2-digit",
    minute: "2-digit",
  });

/** The frame: the top value's gridline and label, and the first and last step's times. */
function frame(root: SVGSVGElement, points: ChartPoint[], max: number, options: ChartOptions): void {
  root.append(
    svg("line", { class: "grid", x1: 0, x2: WIDTH, y1: TOP, y2: TOP }),
    svg("line", { class: "axis", x1: 0, x2: WIDTH, y1: HEIGHT - BOTTOM, y2: HEIGHT - BOTTOM }),
    svg("text", { class: "tick", x: 2, y: TOP - 4 }, options.format(max)),
  );
  if (points.length > 0) {
    root.append(
      svg("text", { class: "tick", x: 2, y: HEIGHT - 4 }, clock(points[0]!.at, options.stepMs)),
      svg(
        "text",
        { class: "tick", x: WIDTH - 2, y: HEIGHT - 4, "text-anchor": "end" },
        clock(points[points.length - 1]!.at, options.stepMs),
      ),
    );
  }
}

function chart(options: ChartOptions): SVGSVGElement {
  const root = svg("svg", {
    class: "chart",
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
    role: "img",
    "aria-label": options.label,
  });
  root.append(svg("title", {}, options.label));
  return root;
}

const yOf = (value: number, max: number) => HEIGHT - BOTTOM - (value / max) * (HEIGHT - BOTTOM - TOP);

/** Bars per step (the bad part of each drawn over it). */
export function barChart(points: ChartPoint[], options: ChartOptions): SVGSVGElement {
  const root = chart(options);
  const max = Math.max(options.minMax ?? 1, ...points.map((point) => point.value ?? 0));
  frame(root, points, max, options);
  const width = WIDTH / Math.max(1, points.length);
  points.forEach((point, i) => {
    const value = point.value ?? 0;
    if (value <= 0) return;
    const x = i * width;
    const y = yOf(value, max);
    root.append(svg("rect", { class: "bar", x, y, width: Math.max(1, width - 1), height: HEIGHT - BOTTOM - y }));
    if (point.bad) {
      const badY = yOf(point.bad, max);
      root.append(
        svg("rect", { class: "bar bad", x, y: badY, width: Math.max(1, width - 1), height: HEIGHT - BOTTOM - badY }),
      );
    }
  });
  return root;
}

/** A line through the steps that have a value (a gap where one has none). */
export function lineChart(points: ChartPoint[], options: ChartOptions): SVGSVGElement {
  const root = chart(options);
  const max = Math.max(options.minMax ?? 1, ...points.map((point) => point.value ?? 0));
  frame(root, points, max, options);
  const step = WIDTH / Math.max(1, points.length);
  let path = "";
  let drawing = false;
  points.forEach((point, i) => {
    if (point.value === null) {
      drawing = false;
      return;
    }
    const x = (i + 0.5) * step;
    path += `${drawing ? "L" : "M"}${x.toFixed(1)} ${yOf(point.value, max).toFixed(1)}`;
    drawing = true;
    root.append(svg("circle", { class: "dot", cx: x, cy: yOf(point.value, max), r: 2 }));
  });
  if (path) root.insertBefore(svg("path", { class: "line", d: path }), root.querySelector("circle"));
  return root;
}
