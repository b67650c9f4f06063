// A few lines of DOM building: h("button", {onclick}, "Deal").
type Child = Node | string | number | null | undefined | false | Child[];
type Attrs = Record<string, unknown>;

export function h(tag: string, attrs: Attrs = {}, ...children: Child[]): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      element.addEventListener(name.slice(2), value as EventListener);
    } else if (name === "class") {
      element.className = String(value);
    } else if (name === "style") {
      // Through the CSSOM: the page's policy (style-src 'self') refuses style attributes.
      for (const rule of String(value).split(";")) {
        const [property, ...rest] = rule.split(":");
        if (property.trim()) element.style.setProperty(property.trim(), rest.join(":").trim());
      }
    } else {
      element.setAttribute(name, value === true ? "" : String(value));
    }
  }
  append(element, children);
  return element;
}

function append(element: HTMLElement, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(element, child);
    else element.append(child instanceof Node ? child : String(child));
  }
}

/** Replace ``root``'s content, keeping the focus on the element with the same
 * ``data-key`` (a re-render must not throw a keyboard user back to the top). */
export function render(root: HTMLElement, ...children: Child[]): void {
  const focused = document.activeElement as HTMLElement | null;
  const key = focused && root.contains(focused) ? focused.dataset.key : undefined;
  root.replaceChildren();
  append(root, children);
  if (key) {
    const again = root.querySelector<HTMLElement>(`[data-key="${CSS.escape(key)}"]`);
    again?.focus();
  }
}

const SVG = "http://www.w3.org/2000/svg";

/** An inline SVG icon (24×24 viewBox) from path data: no font needed, so no
 * missing glyph on any machine. Decorative unless given a `title`. */
export function icon(paths: string[], cls = "", title?: string): SVGSVGElement {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", `icon ${cls}`.trim());
  if (title) {
    svg.setAttribute("role", "img");
    const name = document.createElementNS(SVG, "title");
    name.textContent = title;
    svg.append(name);
  } else {
    svg.setAttribute("aria-hidden", "true");
  }
  for (const d of paths) {
    const path = document.createElementNS(SVG, "path");
    path.setAttribute("d", d);
    svg.append(path);
  }
  return svg;
}

/** The icons the page draws (stroked with currentColor by play.css). */
export const ICONS = {
  clock: ["M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18z", "M12 7v5l3.5 2"],
  bot: ["M6 9h12v10H6z", "M12 5v4", "M9.5 13.5h.01", "M14.5 13.5h.01", "M10 16.5h4", "M3.5 13v3", "M20.5 13v3"],
  left: ["M19 12H6", "M11 6l-6 6l6 6"],
  right: ["M5 12h13", "M13 6l6 6l-6 6"],
  swap: ["M4 8h14", "M14 4l4 4l-4 4", "M20 16H6", "M10 12l-4 4l4 4"],
  crown: ["M4 18h16", "M4 16l-1-9l5 4l4-6l4 6l5-4l-1 9z"],
  copy: ["M9 9h10v11H9z", "M5 15V4h10"],
  deal: ["M7 4h10v16H7z", "M3 7l4-1", "M21 7l-4-1"],
} satisfies Record<string, string[]>;
