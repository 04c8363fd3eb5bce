import { h } from "../dom.ts";

/**
 * Charts as inline SVG built with the DOM (no library, no markup from data: every label is a text node). A
 * chart is a figure: the SVG is one image with a title and a description a screen reader reads, and a legend
 * with each series' total beside it.
 */
const NS = "http://www.w3.org/2000/svg";
const WIDTH = 720;
const HEIGHT = 200;
const PAD = { left: 56, right: 12, top: 10, bottom: 24 };

function svg(
  tag: string,
  attrs: Record<string, string | number>,
  ...children: Array<Node | string>
): SVGElement {
  const element = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attrs)) element.setAttribute(name, String(value));
  for (const child of children) element.append(child);
  return element;
}

export interface Series {
  name: string;
  /** CSS class giving the line its colour (`s-<name>` in components.css). */
  key: string;
  /** One value per x label; null leaves a gap (no data for the point). */
  values: Array<number | null>;
  /** What the legend shows beside the name (a total, a median). */
  summary: string;
}

/** A rounded-up axis maximum that four gridlines divide evenly (whole numbers for counts from 4 up). */
function niceMax(value: number): number {
  if (value <= 4) return 4;
  const power = 10 ** Math.floor(Math.log10(value));
  return ([1, 2, 4, 8, 10].find((m) => m * power >= value) ?? 10) * power;
}

/** The path of one series: a line through its points, broken where a value is missing. */
function linePath(values: Array<number | null>, x: (i: number) => number, y: (v: number) => number): string {
  let path = "";
  let pen = false;
  values.forEach((value, i) => {
    if (value === null) {
      pen = false;
      return;
    }
    path += `${pen ? "L" : "M"}${x(i).toFixed(1)},${y(value).toFixed(1)}`;
    pen = true;
  });
  return path;
}

/** A line chart of several series over the same x labels, with a y axis formatted by `format`. */
export function lineChart(options: {
  id: string;
  title: string;
  labels: string[];
  series: Series[];
  format: (value: number) => string;
}): HTMLElement {
  const { labels, series, format } = options;
  const max = niceMax(Math.max(0, ...series.flatMap((s) => s.values.filter((v): v is number => v !== null))));
  const innerW = WIDTH - PAD.left - PAD.right;
  const innerH = HEIGHT - PAD.top - PAD.bottom;
  const x = (i: number) => PAD.left + (labels.length > 1 ? (i / (labels.length - 1)) * innerW : innerW / 2);
  const y = (v: number) => PAD.top + innerH - (v / max) * innerH;
  const grid = [0, 0.25, 0.5, 0.75, 1].map((f) =>
    svg(
      "g",
      { class: "grid" },
      svg("line", { x1: PAD.left, x2: WIDTH - PAD.right, y1: y(f * max), y2: y(f * max) }),
      svg("text", { x: PAD.left - 6, y: y(f * max) + 4, "text-anchor": "end" }, format(f * max)),
    ),
  );
  const ticks = [...new Set([0, Math.floor((labels.length - 1) / 2), labels.length - 1])].map((i) =>
    svg(
      "text",
      {
        class: "tick",
        x: x(i),
        y: HEIGHT - 6,
        "text-anchor": i === 0 ? "start" : i === labels.length - 1 ? "end" : "middle",
      },
      labels[i] ?? "",
    ),
  );
  const lines = series.map((s) =>
    svg("path", { class: `line ${s.key}`, d: linePath(s.values, x, y), "data-series": s.name }),
  );
  // A point with no neighbour draws no line: a dot shows it.
  const dots = series.flatMap((s) =>
    s.values.flatMap((v, i) =>
      v !== null && (s.values[i - 1] ?? null) === null && (s.values[i + 1] ?? null) === null
        ? [svg("circle", { class: `dot ${s.key}`, cx: x(i), cy: y(v), r: 3 })]
        : [],
    ),
  );
  const description = series.map((s) => `${s.name}: ${s.summary}`).join("; ");
  const image = svg(
    "svg",
    {
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
      role: "img",
      "aria-labelledby": `${options.id}-title ${options.id}-desc`,
    },
    svg("title", { id: `${options.id}-title` }, options.title),
    svg("desc", { id: `${options.id}-desc` }, `${labels[0] ?? ""} to ${labels.at(-1) ?? ""}. ${description}`),
    ...grid,
    ...ticks,
    ...lines,
    ...dots,
  );
  return h(
    "figure",
    { class: "chart", id: options.id },
    h("figcaption", {}, options.title),
    image,
    h(
      "ul",
      { class: "legend" },
      series.map((s) =>
        h(
          "li",
          {},
          h("span", { class: `swatch ${s.key}`, "aria-hidden": "true" }),
          `${s.name} `,
          h("strong", {}, s.summary),
        ),
      ),
    ),
  );
}

/** A bar showing `share` (0–1) of the widest value, for tables that compare values. */
export function shareBar(share: number): HTMLElement {
  const bar = h("span", { class: "share", "aria-hidden": "true" });
  bar.style.width = `${Math.round(Math.max(0, Math.min(1, share)) * 100)}%`;
  return h("span", { class: "share-track" }, bar);
}
