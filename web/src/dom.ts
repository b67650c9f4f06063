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
