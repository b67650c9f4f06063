// node_modules/openapi-fetch/dist/index.mjs
var PATH_PARAM_RE = /\{[^{}]+\}/g;
var supportsRequestInitExt = () => {
  return typeof process === "object" && Number.parseInt(process?.versions?.node?.substring(0, 2)) >= 18 && process.versions.undici;
};
function randomID() {
  return Math.random().toString(36).slice(2, 11);
}
function createClient(clientOptions) {
  let {
    baseUrl = "",
    Request: CustomRequest = globalThis.Request,
    fetch: baseFetch = globalThis.fetch,
    querySerializer: globalQuerySerializer,
    bodySerializer: globalBodySerializer,
    pathSerializer: globalPathSerializer,
    headers: baseHeaders,
    requestInitExt = void 0,
    ...baseOptions
  } = { ...clientOptions };
  requestInitExt = supportsRequestInitExt() ? requestInitExt : void 0;
  baseUrl = removeTrailingSlash(baseUrl);
  const globalMiddlewares = [];
  async function coreFetch(schemaPath, fetchOptions) {
    const {
      baseUrl: localBaseUrl,
      fetch = baseFetch,
      Request = CustomRequest,
      headers,
      params = {},
      parseAs = "json",
      querySerializer: requestQuerySerializer,
      bodySerializer = globalBodySerializer ?? defaultBodySerializer,
      pathSerializer: requestPathSerializer,
      body,
      middleware: requestMiddlewares = [],
      ...init
    } = fetchOptions || {};
    let finalBaseUrl = baseUrl;
    if (localBaseUrl) {
      finalBaseUrl = removeTrailingSlash(localBaseUrl) ?? baseUrl;
    }
    let querySerializer = typeof globalQuerySerializer === "function" ? globalQuerySerializer : createQuerySerializer(globalQuerySerializer);
    if (requestQuerySerializer) {
      querySerializer = typeof requestQuerySerializer === "function" ? requestQuerySerializer : createQuerySerializer({
        ...typeof globalQuerySerializer === "object" ? globalQuerySerializer : {},
        ...requestQuerySerializer
      });
    }
    const pathSerializer = requestPathSerializer || globalPathSerializer || defaultPathSerializer;
    const serializedBody = body === void 0 ? void 0 : bodySerializer(
      body,
      // Note: we declare mergeHeaders() both here and below because it’s a bit of a chicken-or-egg situation:
      // bodySerializer() needs all headers so we aren’t dropping ones set by the user, however,
      // the result of this ALSO sets the lowest-priority content-type header. So we re-merge below,
      // setting the content-type at the very beginning to be overwritten.
      // Lastly, based on the way headers work, it’s not a simple “present-or-not” check becauase null intentionally un-sets headers.
      mergeHeaders(baseHeaders, headers, params.header)
    );
    const finalHeaders = mergeHeaders(
      // with no body, we should not to set Content-Type
      serializedBody === void 0 || // if serialized body is FormData; browser will correctly set Content-Type & boundary expression
      serializedBody instanceof FormData ? {} : {
        "Content-Type": "application/json"
      },
      baseHeaders,
      headers,
      params.header
    );
    const finalMiddlewares = [...globalMiddlewares, ...requestMiddlewares];
    const requestInit = {
      redirect: "follow",
      ...baseOptions,
      ...init,
      body: serializedBody,
      headers: finalHeaders
    };
    let id;
    let options;
    let request = new Request(
      createFinalURL(schemaPath, { baseUrl: finalBaseUrl, params, querySerializer, pathSerializer }),
      requestInit
    );
    let response;
    for (const key2 in init) {
      if (!(key2 in request)) {
        request[key2] = init[key2];
      }
    }
    if (finalMiddlewares.length) {
      id = randomID();
      options = Object.freeze({
        baseUrl: finalBaseUrl,
        fetch,
        parseAs,
        querySerializer,
        bodySerializer,
        pathSerializer
      });
      for (const m of finalMiddlewares) {
        if (m && typeof m === "object" && typeof m.onRequest === "function") {
          const result = await m.onRequest({
            request,
            schemaPath,
            params,
            options,
            id
          });
          if (result) {
            if (result instanceof Request) {
              request = result;
            } else if (result instanceof Response) {
              response = result;
              break;
            } else {
              throw new Error("onRequest: must return new Request() or Response() when modifying the request");
            }
          }
        }
      }
    }
    if (!response) {
      try {
        response = await fetch(request, requestInitExt);
      } catch (error2) {
        let errorAfterMiddleware = error2;
        if (finalMiddlewares.length) {
          for (let i = finalMiddlewares.length - 1; i >= 0; i--) {
            const m = finalMiddlewares[i];
            if (m && typeof m === "object" && typeof m.onError === "function") {
              const result = await m.onError({
                request,
                error: errorAfterMiddleware,
                schemaPath,
                params,
                options,
                id
              });
              if (result) {
                if (result instanceof Response) {
                  errorAfterMiddleware = void 0;
                  response = result;
                  break;
                }
                if (result instanceof Error) {
                  errorAfterMiddleware = result;
                  continue;
                }
                throw new Error("onError: must return new Response() or instance of Error");
              }
            }
          }
        }
        if (errorAfterMiddleware) {
          throw errorAfterMiddleware;
        }
      }
      if (finalMiddlewares.length) {
        for (let i = finalMiddlewares.length - 1; i >= 0; i--) {
          const m = finalMiddlewares[i];
          if (m && typeof m === "object" && typeof m.onResponse === "function") {
            const result = await m.onResponse({
              request,
              response,
              schemaPath,
              params,
              options,
              id
            });
            if (result) {
              if (!(result instanceof Response)) {
                throw new Error("onResponse: must return new Response() when modifying the response");
              }
              response = result;
            }
          }
        }
      }
    }
    const contentLength = response.headers.get("Content-Length");
    if (response.status === 204 || request.method === "HEAD" || contentLength === "0" && !response.headers.get("Transfer-Encoding")?.includes("chunked")) {
      return response.ok ? { data: void 0, response } : { error: void 0, response };
    }
    if (response.ok) {
      const getResponseData = async () => {
        if (parseAs === "stream") {
          return response.body;
        }
        if (parseAs === "json" && !contentLength) {
          const raw = await response.text();
          return raw ? JSON.parse(raw) : void 0;
        }
        return await response[parseAs]();
      };
      return { data: await getResponseData(), response };
    }
    let error = await response.text();
    try {
      error = JSON.parse(error);
    } catch {
    }
    return { error, response };
  }
  return {
    request(method, url, init) {
      return coreFetch(url, { ...init, method: method.toUpperCase() });
    },
    /** Call a GET endpoint */
    GET(url, init) {
      return coreFetch(url, { ...init, method: "GET" });
    },
    /** Call a PUT endpoint */
    PUT(url, init) {
      return coreFetch(url, { ...init, method: "PUT" });
    },
    /** Call a POST endpoint */
    POST(url, init) {
      return coreFetch(url, { ...init, method: "POST" });
    },
    /** Call a DELETE endpoint */
    DELETE(url, init) {
      return coreFetch(url, { ...init, method: "DELETE" });
    },
    /** Call a OPTIONS endpoint */
    OPTIONS(url, init) {
      return coreFetch(url, { ...init, method: "OPTIONS" });
    },
    /** Call a HEAD endpoint */
    HEAD(url, init) {
      return coreFetch(url, { ...init, method: "HEAD" });
    },
    /** Call a PATCH endpoint */
    PATCH(url, init) {
      return coreFetch(url, { ...init, method: "PATCH" });
    },
    /** Call a TRACE endpoint */
    TRACE(url, init) {
      return coreFetch(url, { ...init, method: "TRACE" });
    },
    /** Register middleware */
    use(...middleware) {
      for (const m of middleware) {
        if (!m) {
          continue;
        }
        if (typeof m !== "object" || !("onRequest" in m || "onResponse" in m || "onError" in m)) {
          throw new Error("Middleware must be an object with one of `onRequest()`, `onResponse() or `onError()`");
        }
        globalMiddlewares.push(m);
      }
    },
    /** Unregister middleware */
    eject(...middleware) {
      for (const m of middleware) {
        const i = globalMiddlewares.indexOf(m);
        if (i !== -1) {
          globalMiddlewares.splice(i, 1);
        }
      }
    }
  };
}
function serializePrimitiveParam(name, value, options) {
  if (value === void 0 || value === null) {
    return "";
  }
  if (typeof value === "object") {
    throw new Error(
      "Deeply-nested arrays/objects aren’t supported. Provide your own `querySerializer()` to handle these."
    );
  }
  return `${name}=${options?.allowReserved === true ? value : encodeURIComponent(value)}`;
}
function serializeObjectParam(name, value, options) {
  if (!value || typeof value !== "object") {
    return "";
  }
  const values = [];
  const joiner = {
    simple: ",",
    label: ".",
    matrix: ";"
  }[options.style] || "&";
  if (options.style !== "deepObject" && options.explode === false) {
    for (const k in value) {
      values.push(k, options.allowReserved === true ? value[k] : encodeURIComponent(value[k]));
    }
    const final2 = values.join(",");
    switch (options.style) {
      case "form": {
        return `${name}=${final2}`;
      }
      case "label": {
        return `.${final2}`;
      }
      case "matrix": {
        return `;${name}=${final2}`;
      }
      default: {
        return final2;
      }
    }
  }
  for (const k in value) {
    const finalName = options.style === "deepObject" ? `${name}[${k}]` : k;
    values.push(serializePrimitiveParam(finalName, value[k], options));
  }
  const final = values.join(joiner);
  return options.style === "label" || options.style === "matrix" ? `${joiner}${final}` : final;
}
function serializeArrayParam(name, value, options) {
  if (!Array.isArray(value)) {
    return "";
  }
  if (options.explode === false) {
    const joiner2 = { form: ",", spaceDelimited: "%20", pipeDelimited: "|" }[options.style] || ",";
    const final = (options.allowReserved === true ? value : value.map((v) => encodeURIComponent(v))).join(joiner2);
    switch (options.style) {
      case "simple": {
        return final;
      }
      case "label": {
        return `.${final}`;
      }
      case "matrix": {
        return `;${name}=${final}`;
      }
      // case "spaceDelimited":
      // case "pipeDelimited":
      default: {
        return `${name}=${final}`;
      }
    }
  }
  const joiner = { simple: ",", label: ".", matrix: ";" }[options.style] || "&";
  const values = [];
  for (const v of value) {
    if (options.style === "simple" || options.style === "label") {
      values.push(options.allowReserved === true ? v : encodeURIComponent(v));
    } else {
      values.push(serializePrimitiveParam(name, v, options));
    }
  }
  return options.style === "label" || options.style === "matrix" ? `${joiner}${values.join(joiner)}` : values.join(joiner);
}
function createQuerySerializer(options) {
  return function querySerializer(queryParams) {
    const search = [];
    if (queryParams && typeof queryParams === "object") {
      for (const name in queryParams) {
        const value = queryParams[name];
        if (value === void 0 || value === null) {
          continue;
        }
        if (Array.isArray(value)) {
          if (value.length === 0) {
            continue;
          }
          search.push(
            serializeArrayParam(name, value, {
              style: "form",
              explode: true,
              ...options?.array,
              allowReserved: options?.allowReserved || false
            })
          );
          continue;
        }
        if (typeof value === "object") {
          search.push(
            serializeObjectParam(name, value, {
              style: "deepObject",
              explode: true,
              ...options?.object,
              allowReserved: options?.allowReserved || false
            })
          );
          continue;
        }
        search.push(serializePrimitiveParam(name, value, options));
      }
    }
    return search.join("&");
  };
}
function defaultPathSerializer(pathname, pathParams) {
  let nextURL = pathname;
  for (const match of pathname.match(PATH_PARAM_RE) ?? []) {
    let name = match.substring(1, match.length - 1);
    let explode = false;
    let style = "simple";
    if (name.endsWith("*")) {
      explode = true;
      name = name.substring(0, name.length - 1);
    }
    if (name.startsWith(".")) {
      style = "label";
      name = name.substring(1);
    } else if (name.startsWith(";")) {
      style = "matrix";
      name = name.substring(1);
    }
    if (!pathParams || pathParams[name] === void 0 || pathParams[name] === null) {
      continue;
    }
    const value = pathParams[name];
    if (Array.isArray(value)) {
      nextURL = nextURL.replace(match, serializeArrayParam(name, value, { style, explode }));
      continue;
    }
    if (typeof value === "object") {
      nextURL = nextURL.replace(match, serializeObjectParam(name, value, { style, explode }));
      continue;
    }
    if (style === "matrix") {
      nextURL = nextURL.replace(match, `;${serializePrimitiveParam(name, value)}`);
      continue;
    }
    nextURL = nextURL.replace(match, style === "label" ? `.${encodeURIComponent(value)}` : encodeURIComponent(value));
  }
  return nextURL;
}
function defaultBodySerializer(body, headers) {
  if (body instanceof FormData) {
    return body;
  }
  if (headers) {
    const contentType = headers.get instanceof Function ? headers.get("Content-Type") ?? headers.get("content-type") : headers["Content-Type"] ?? headers["content-type"];
    if (contentType === "application/x-www-form-urlencoded") {
      return new URLSearchParams(body).toString();
    }
  }
  return JSON.stringify(body);
}
function createFinalURL(pathname, options) {
  let finalURL = `${options.baseUrl}${pathname}`;
  if (options.params?.path) {
    finalURL = options.pathSerializer(finalURL, options.params.path);
  }
  let search = options.querySerializer(options.params.query ?? {});
  if (search.startsWith("?")) {
    search = search.substring(1);
  }
  if (search) {
    finalURL += `?${search}`;
  }
  return finalURL;
}
function mergeHeaders(...allHeaders) {
  const finalHeaders = new Headers();
  for (const h2 of allHeaders) {
    if (!h2 || typeof h2 !== "object") {
      continue;
    }
    const iterator = h2 instanceof Headers ? h2.entries() : Object.entries(h2);
    for (const [k, v] of iterator) {
      if (v === null) {
        finalHeaders.delete(k);
      } else if (Array.isArray(v)) {
        for (const v2 of v) {
          finalHeaders.append(k, v2);
        }
      } else if (v !== void 0) {
        finalHeaders.set(k, v);
      }
    }
  }
  return finalHeaders;
}
function removeTrailingSlash(url) {
  if (url.endsWith("/")) {
    return url.substring(0, url.length - 1);
  }
  return url;
}

// src/api.ts
var api = createClient({ baseUrl: location.origin });
var Refused = class extends Error {
  constructor(status2, problem) {
    super(`${problem.code ?? status2}: ${problem.detail ?? problem.title ?? ""}`);
    this.status = status2;
    this.problem = problem;
  }
};
function ok(answer) {
  if (answer.error !== void 0 || answer.data === void 0) {
    throw new Refused(answer.response.status, answer.error ?? {});
  }
  return answer.data;
}
var bearer = (token) => ({ Authorization: `Bearer ${token}` });
var KEY = (table) => `card-referee:${table}`;
function held(table) {
  try {
    return JSON.parse(localStorage.getItem(KEY(table)) ?? "{}");
  } catch {
    return {};
  }
}
function hold(table, more) {
  const next = { ...held(table), ...more };
  localStorage.setItem(KEY(table), JSON.stringify(next));
  return next;
}

// src/dom.ts
function h(tag, attrs = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === void 0 || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      element.addEventListener(name.slice(2), value);
    } else if (name === "class") {
      element.className = String(value);
    } else {
      element.setAttribute(name, value === true ? "" : String(value));
    }
  }
  append(element, children);
  return element;
}
function append(element, children) {
  for (const child of children) {
    if (child === null || child === void 0 || child === false) continue;
    if (Array.isArray(child)) append(element, child);
    else element.append(child instanceof Node ? child : String(child));
  }
}
function render(root, ...children) {
  const focused = document.activeElement;
  const key2 = focused && root.contains(focused) ? focused.dataset.key : void 0;
  root.replaceChildren();
  append(root, children);
  if (key2) {
    const again = root.querySelector(`[data-key="${CSS.escape(key2)}"]`);
    again?.focus();
  }
}

// src/cards.ts
var SUITS = "SHCD";
var RANKS = "AKQJT98765432";
var SUIT_SIGN = { S: "♠", H: "♥", D: "♦", C: "♣" };
var SUIT_NAME = {
  S: "spades",
  H: "hearts",
  D: "diamonds",
  C: "clubs"
};
var suitOf = (card) => card.slice(-1);
var rankOf = (card) => card.slice(0, -1);
function order(card) {
  if (card === "JK") return 999;
  return SUITS.indexOf(suitOf(card)) * 20 + RANKS.indexOf(rankOf(card));
}
var sorted = (hand2) => [...hand2].sort((a, b) => order(a) - order(b));
function label(card) {
  if (card === "JK") return "🃏";
  const rank = rankOf(card) === "T" ? "10" : rankOf(card);
  return rank + (SUIT_SIGN[suitOf(card)] ?? suitOf(card));
}
function spoken(card) {
  if (card === "JK") return "joker";
  const names = { A: "ace", K: "king", Q: "queen", J: "jack", T: "ten" };
  return `${names[rankOf(card)] ?? rankOf(card)} of ${SUIT_NAME[suitOf(card)] ?? suitOf(card)}`;
}
var red = (card) => "HD".includes(suitOf(card)) && card !== "JK";

// src/games.ts
function hand(ctx, marked, onPick) {
  const cards = sorted(ctx.view?.hand ?? []);
  return h(
    "div",
    { id: "hand", role: "group", "aria-label": "your hand" },
    cards.map((card, i) => {
      const playable = marked === "all" || marked.has(card);
      const picked = ctx.picked.has(`${card}#${i}`);
      return h(
        "button",
        {
          type: "button",
          class: ["card", red(card) ? "red" : "", playable ? "playable" : "dim", picked ? "picked" : ""].join(" "),
          "data-card": card,
          "data-key": `card-${card}-${i}`,
          "aria-pressed": picked ? "true" : "false",
          "aria-label": spoken(card) + (playable ? "" : ", not playable now"),
          onclick: () => onPick(card, i)
        },
        label(card)
      );
    })
  );
}
var pickedCards = (ctx) => [...ctx.picked].map((k) => k.split("#")[0]);
function toggle(ctx, card, index, most) {
  const k = `${card}#${index}`;
  if (ctx.picked.has(k)) ctx.picked.delete(k);
  else {
    if (ctx.picked.size >= most) ctx.picked.clear();
    ctx.picked.add(k);
  }
  ctx.draw();
}
function action(name, shortcut, run, enabled = true) {
  return h(
    "button",
    {
      type: "button",
      class: "action",
      "data-action": name,
      "data-key": `action-${name}`,
      "data-shortcut": shortcut,
      "aria-keyshortcuts": shortcut.toUpperCase(),
      disabled: !enabled,
      onclick: run
    },
    name,
    h("kbd", {}, shortcut.toUpperCase())
  );
}
var mine = (ctx) => held(ctx.id);
var auth = (ctx) => bearer(mine(ctx).token);
var path = (ctx) => ({ table_id: ctx.id });
function gamePanel(ctx) {
  if (!ctx.table.round) return "";
  const panel = { "my-ship-sails": ship, sevens, "may-i": mayI }[ctx.table.game ?? ""];
  return h("section", { class: `game ${ctx.table.game}`, "aria-label": "play" }, panel ? panel(ctx) : "");
}
function ship(ctx) {
  const round = ctx.table.round;
  const view = ctx.view;
  const count = Number(ctx.table.options?.pass_count ?? 1);
  const out = [
    h("p", { id: "state" }, `Exchange ${round.exchange ?? "-"} · passing ${round.direction ?? ""} · ${round.status}`, round.window_closes_at_ms ? " · claim window open" : "")
  ];
  if (!view) return out;
  const choosing = Boolean(view.to_choose) && round.status === "passing";
  out.push(hand(ctx, choosing ? "all" : /* @__PURE__ */ new Set(), (card, i) => choosing && toggle(ctx, card, i, count)));
  if (view.pending?.length) out.push(h("p", { id: "pending" }, `Your pass: ${view.pending.map(label).join(" ")} (waiting for the others)`));
  if (view.received?.length) out.push(h("p", { id: "received" }, `Received: ${view.received.map(label).join(" ")}`));
  const cards = pickedCards(ctx);
  const buttons = [
    action(
      cards.length === count ? `Pass ${cards.map(label).join(" ")}` : `Pass (pick ${count})`,
      "p",
      () => ctx.act(async () => {
        ok(
          await api.PUT("/v1/tables/{table_id}/rounds/{round_no}/exchanges/{exchange_no}/passes/{seat}", {
            params: { path: { ...path(ctx), round_no: round.number, exchange_no: view.exchange, seat: view.seat } },
            body: { cards },
            headers: auth(ctx)
          })
        );
      }),
      choosing && cards.length === count
    )
  ];
  const options = ctx.table.options;
  if (options?.declaration !== "automatic") {
    buttons.push(
      action(
        String(options?.call ?? "Claim"),
        "c",
        () => ctx.act(async () => {
          ok(
            await api.POST("/v1/tables/{table_id}/rounds/{round_no}/claims", {
              params: { path: { ...path(ctx), round_no: round.number } },
              headers: { ...auth(ctx), "Idempotency-Key": crypto.randomUUID() }
            })
          );
        }),
        round.status !== "over"
      )
    );
  }
  out.push(h("p", { class: "actions" }, buttons));
  return out;
}
function sevens(ctx) {
  const round = ctx.table.round;
  const view = ctx.view;
  const rows = round.layout ?? [];
  const out = [
    h("p", { id: "state" }, `Turn ${round.turn ?? "-"} · pot ${round.pot ?? 0} · ${round.status}`),
    h(
      "ol",
      { id: "layout", "aria-label": "layout" },
      rows.length === 0 ? h("li", {}, "The layout is empty: the opening seven comes first.") : "",
      rows.map((r) => h("li", { "data-suit": r.suit, class: red(r.low ?? "") ? "red" : "" }, `${label(r.low ?? "")} … ${label(r.high ?? "")}`))
    )
  ];
  if (!view) return out;
  const playable = new Set(view.playable ?? []);
  const play = (card) => ctx.act(async () => {
    ok(
      await api.PUT("/v1/tables/{table_id}/rounds/{round_no}/turns/{turn_no}", {
        params: { path: { ...path(ctx), round_no: round.number, turn_no: view.turn } },
        body: { play: card, ...view.must_announce ? { last_card: true } : {} },
        headers: auth(ctx)
      })
    );
  });
  out.push(hand(ctx, view.on_turn ? playable : /* @__PURE__ */ new Set(), (card) => view.on_turn && playable.has(card) && play(card)));
  out.push(
    h(
      "p",
      { class: "actions" },
      view.on_turn ? playable.size ? "Your turn: pick a highlighted card. " : "Your turn: nothing fits. " : "",
      action(
        "Pass",
        "s",
        () => ctx.act(async () => {
          ok(
            await api.PUT("/v1/tables/{table_id}/rounds/{round_no}/turns/{turn_no}", {
              params: { path: { ...path(ctx), round_no: round.number, turn_no: view.turn } },
              body: { pass: true },
              headers: auth(ctx)
            })
          );
        }),
        Boolean(view.on_turn && view.may_pass)
      )
    )
  );
  return out;
}
function mayI(ctx) {
  const round = ctx.table.round;
  const view = ctx.view;
  const seats = ctx.table.seats ?? [];
  const name = (s) => s === null || s === void 0 ? "nobody" : seats[s]?.name ?? `seat ${s}`;
  const offer = round.may_i;
  const out = [
    h("p", { id: "state" }, `Contract: ${round.contract} · step ${round.step} · stock ${round.stock_size} · discard pile ${round.discard_size}`),
    h("p", { id: "discard" }, "Discard: ", round.discard_top ? h("span", { class: `card face ${red(round.discard_top) ? "red" : ""}`, "data-card": round.discard_top }, label(round.discard_top)) : "none"),
    h(
      "ol",
      { id: "melds", "aria-label": "melds" },
      (round.melds ?? []).map((m) => h("li", { "data-meld": m.id }, `${m.id}. ${m.kind} of ${name(m.owner)}: `, (m.cards ?? []).map(label).join(" ")))
    )
  ];
  if (offer) {
    const answers = Object.entries(offer.answers ?? {}).map(([s, a]) => `${name(Number(s))} ${a === "allow" ? "allows" : "denies"}`);
    out.push(
      h(
        "p",
        { id: "may-i", class: "offer" },
        `May I? for ${label(offer.card ?? "")}: `,
        offer.asker === null || offer.asker === void 0 ? "nobody has asked yet" : `${name(offer.asker)} asks`,
        answers.length ? ` · ${answers.join(", ")}` : "",
        offer.until_ms ? h("span", { class: "clock", "data-until": offer.until_ms }, "") : ""
      )
    );
  }
  if (!view) return out;
  const may = new Set(view.may ?? []);
  const lay = view.lay_offs ?? {};
  const discardable = new Set(view.discardable ?? []);
  const marked = /* @__PURE__ */ new Set([...may.has("discard") ? discardable : [], ...may.has("lay_off") ? Object.keys(lay) : []]);
  if (may.has("lay_down")) for (const c of view.hand ?? []) marked.add(c);
  const move = (body) => ctx.act(async () => {
    ok(
      await api.PUT("/v1/tables/{table_id}/rounds/{round_no}/moves/{move_no}", {
        params: { path: { ...path(ctx), round_no: round.number, move_no: view.move } },
        body,
        headers: auth(ctx)
      })
    );
  });
  out.push(hand(ctx, marked, (card, i) => toggle(ctx, card, i, 24)));
  const cards = pickedCards(ctx);
  const buttons = [];
  if (may.has("take_discard")) buttons.push(action("Take the discard", "t", () => move({ take_discard: true })));
  if (may.has("decline")) buttons.push(action("Decline it", "n", () => move({ decline: true })));
  if (may.has("draw")) buttons.push(action("Draw", "d", () => move({ draw: true })));
  if (may.has("lay_down")) {
    if (view.contract) buttons.push(action(`Lay down ${view.contract.map((m) => m.map(label).join(" ")).join(" | ")}`, "l", () => move({ lay_down: view.contract })));
    buttons.push(action("Picked cards make a meld", "g", () => {
      ctx.melds.push(cards);
      ctx.picked.clear();
      ctx.draw();
    }, cards.length > 0));
    if (ctx.melds.length) buttons.push(action(`Lay down ${ctx.melds.length} meld(s)`, "k", () => move({ lay_down: ctx.melds.splice(0) })));
  }
  if (may.has("lay_off") && cards.length === 1) {
    for (const meld of lay[cards[0]] ?? []) {
      buttons.push(action(`Lay off on meld ${meld}`, String(meld).slice(-1), () => move({ lay_off: { card: cards[0], meld } })));
    }
  }
  if (may.has("discard")) buttons.push(action(cards.length === 1 ? `Discard ${label(cards[0])}` : "Discard (pick 1)", "x", () => move({ discard: cards[0] }), cards.length === 1 && discardable.has(cards[0])));
  if (may.has("done")) buttons.push(action("Done", "e", () => move({ done: true })));
  if (offer && may.has("ask")) {
    buttons.push(
      action(
        "May I?",
        "m",
        () => ctx.act(async () => {
          ok(await api.POST("/v1/tables/{table_id}/rounds/{round_no}/may-i", { params: { path: { ...path(ctx), round_no: round.number } }, body: { offer: offer.offer }, headers: { ...auth(ctx), "Idempotency-Key": crypto.randomUUID() } }));
        })
      )
    );
  }
  if (offer && may.has("answer")) {
    const answer = (allow) => ctx.act(async () => {
      ok(
        await api.PUT("/v1/tables/{table_id}/rounds/{round_no}/may-i/{offer_no}/answers/{seat}", {
          params: { path: { ...path(ctx), round_no: round.number, offer_no: offer.offer, seat: view.seat } },
          body: { allow },
          headers: auth(ctx)
        })
      );
    });
    buttons.push(action("Allow", "a", () => answer(true)), action("Deny", "r", () => answer(false)));
  }
  if (ctx.melds.length) out.push(h("p", { id: "building" }, "Melds to lay down: ", ctx.melds.map((m) => m.map(label).join(" ")).join(" | ")));
  out.push(h("p", { class: "actions" }, view.on_turn ? "Your turn. " : "", buttons));
  return out;
}
function describe(event, table) {
  const who = (s) => typeof s === "number" ? table?.seats?.[s]?.name ?? `seat ${s}` : "";
  const card = typeof event.card === "string" ? ` ${label(event.card)}` : "";
  const seat = typeof event.name === "string" ? `${event.name} ` : "seat" in event ? `${who(event.seat)} ` : "";
  const text = {
    "table-created": "The table was created",
    "seat-joined": `${seat}joined`,
    "seat-left": `${seat}left`,
    "round-dealt": `Round ${event.round} was dealt`,
    "pass-chosen": `${seat}chose a pass`,
    "exchange-resolved": `Exchange ${event.exchange} resolved`,
    "claim-accepted": `${seat}claimed and won`,
    "claim-rejected": `${seat}claimed, refused`,
    "card-played": `${seat}played${card}`,
    passed: `${seat}passed`,
    "discard-taken": `${seat}took${card}`,
    "discard-declined": `${seat}declined${card}`,
    "stock-drawn": `${seat}drew from the stock`,
    "laid-down": `${seat}laid down`,
    "laid-off": `${seat}laid off${card}`,
    discarded: `${seat}discarded${card}`,
    "may-i-offered": `May I?${card} is on offer`,
    "may-i-asked": `${seat}asks "May I?" for${card}`,
    "may-i-answered": `${seat}${event.allow ? "allows" : "denies"}`,
    "may-i-given": `${seat}gets${card}`,
    "may-i-lapsed": "Nobody asked",
    "went-out": `${seat}went out`,
    "round-won": `Round ${event.round} is over`,
    "round-over": `Round ${event.round} is over`,
    "round-void": `Round ${event.round} is void`
  };
  return text[String(event.type)] ?? `${event.type}${seat ? ` (${seat.trim()})` : ""}`;
}

// src/play.ts
var main = document.getElementById("main");
var status = document.getElementById("status");
function say(text, error = false) {
  status.textContent = text;
  status.className = error ? "error" : "";
}
async function attempt(what) {
  try {
    await what();
  } catch (error) {
    say(error instanceof Refused ? error.message : String(error), true);
  }
}
var key = () => ({ "Idempotency-Key": crypto.randomUUID() });
var LOBBY_SHOWN = 20;
var LOBBY_PAGES = 5;
async function listedTables() {
  const found = [];
  let after;
  for (let page = 0; page < LOBBY_PAGES && found.length < LOBBY_SHOWN; page++) {
    const query = { limit: LOBBY_SHOWN - found.length, ...after ? { after } : {} };
    const listed = await api.GET("/v1/lobby", { params: { query } }).then(ok);
    found.push(...listed.tables ?? []);
    if (!listed.more || !listed.next_after) break;
    after = listed.next_after;
  }
  return found;
}
async function lobby() {
  const [games, tables] = await Promise.all([api.GET("/v1/games").then(ok), listedTables()]);
  const presets = (games.games ?? []).flatMap(
    (g) => (g.variants ?? []).map((v) => ({ ...v, title: g.title ?? g.name }))
  );
  const form = createForm(presets);
  render(
    main,
    h("h2", {}, "Open tables"),
    tables.length === 0 ? h("p", {}, "No listed table has an open seat. Create one below.") : h(
      "ul",
      { class: "lobby" },
      tables.map(
        (t) => h(
          "li",
          {},
          h("strong", {}, t.variant ?? ""),
          ` (${t.game}) · ${t.seats_taken} of ${(t.seats_taken ?? 0) + (t.seats_open ?? 0)} seats taken: `,
          (t.seats ?? []).map((s) => s.name ?? "open").join(", "),
          " ",
          h("a", { href: `#/join/${t.table_id}`, "data-key": `join-${t.table_id}` }, "Take a seat")
        )
      )
    ),
    h("h2", {}, "Create a table"),
    form
  );
}
function createForm(presets) {
  const preset = h(
    "select",
    { id: "preset", name: "preset", "data-key": "preset" },
    presets.map((p) => h("option", { value: p.name }, `${p.title}: ${p.name} (${p.description})`))
  );
  const seats = h("input", { id: "seats", type: "number", min: 2, max: 10, value: 4, "data-key": "seats" });
  const name = h("input", { id: "name", required: true, maxlength: 40, value: "", "data-key": "name", autocomplete: "nickname" });
  const listed = h("input", { id: "listed", type: "checkbox", "data-key": "listed" });
  const window2 = h("input", { id: "window", type: "number", min: 0, max: 6e4, step: 500, value: 5e3, "data-key": "window" });
  const windowRow = h("p", { id: "window-row" }, h("label", { for: "window" }, "May I? window (ms) "), window2);
  const clocked = h("input", { id: "clocked", type: "checkbox", "data-key": "clocked" });
  const turnSeconds = h("input", { id: "turn-seconds", type: "number", min: 1, max: 3600, value: 30, "data-key": "turn-seconds" });
  const botDelay = h("input", { id: "bot-delay", type: "number", min: 0, max: 6e4, step: 100, value: 600, "data-key": "bot-delay" });
  const seatList = h("ol", { id: "seat-kinds", start: 0 });
  const kinds = [];
  const layoutSeats = () => {
    const count = Number(seats.value);
    while (kinds.length < count - 1) {
      const i = kinds.length + 1;
      kinds.push(
        h(
          "select",
          { id: `seat-${i}`, "data-key": `seat-${i}`, "aria-label": `Seat ${i}` },
          h("option", { value: "open" }, "a person (open seat)"),
          h("option", { value: "basic" }, "bot: basic"),
          h("option", { value: "random" }, "bot: random")
        )
      );
    }
    kinds.length = Math.max(0, count - 1);
    render(
      seatList,
      h("li", {}, "you"),
      kinds.map((k, i) => h("li", {}, h("label", { for: k.id }, `Seat ${i + 1}: `), k))
    );
  };
  const fit = () => {
    const chosen = presets.find((p) => p.name === preset.value);
    if (!chosen) return;
    seats.min = String(chosen.min_players);
    seats.max = String(chosen.max_players);
    const n = Number(seats.value);
    if (n < (chosen.min_players ?? 2) || n > (chosen.max_players ?? 10)) seats.value = String(chosen.min_players);
    windowRow.hidden = chosen.game !== "may-i";
    layoutSeats();
  };
  preset.addEventListener("change", fit);
  seats.addEventListener("change", layoutSeats);
  seats.addEventListener("input", layoutSeats);
  fit();
  const create = async (players, options) => {
    const chosen = presets.find((p) => p.name === preset.value);
    if (chosen?.game === "may-i") options.may_i_window_ms = Number(window2.value);
    if (clocked.checked) options.turn_timeout_ms = Number(turnSeconds.value) * 1e3;
    if (botDelay.value !== "") options.bot_delay_ms = Number(botDelay.value);
    const created = ok(
      await api.POST("/v1/tables", {
        body: {
          variant: preset.value,
          players,
          listed: listed.checked,
          ...Object.keys(options).length ? { options } : {}
        },
        headers: key()
      })
    );
    const id = created.table_id;
    hold(id, {
      seat: created.seat_tokens?.[0]?.seat,
      token: created.seat_tokens?.[0]?.token,
      host: created.host_token,
      codes: created.join_codes
    });
    location.hash = `#/table/${id}`;
  };
  const me = () => name.value.trim() || "You";
  const submit = async (event) => {
    event.preventDefault();
    const others = kinds.map((k) => k.value === "open" ? null : { bot: k.value });
    await create([me(), ...others], {});
  };
  const quick = async () => {
    const chosen = presets.find((p) => p.name === preset.value);
    if (chosen && ((chosen.min_players ?? 2) > 4 || (chosen.max_players ?? 10) < 4)) {
      say(`${chosen.name} is not played by four: pick another preset or set the seats below.`, true);
      return;
    }
    await create([me(), { bot: "basic" }, { bot: "basic" }, { bot: "basic" }], {});
  };
  return h(
    "form",
    { id: "create", onsubmit: (e) => attempt(() => submit(e)) },
    h("p", {}, h("label", { for: "preset" }, "Game and preset "), preset),
    h("p", {}, h("label", { for: "name" }, "Your name "), name),
    h(
      "p",
      {},
      h("button", { type: "button", id: "play-bots", "data-key": "play-bots", onclick: () => attempt(quick) }, "Play against 3 bots"),
      " (you and three basic bots, now)"
    ),
    h("p", {}, h("label", { for: "seats" }, "Seats "), seats),
    seatList,
    h("p", {}, listed, h("label", { for: "listed" }, " List it in the lobby (anyone may take an open seat)")),
    h(
      "p",
      {},
      clocked,
      h("label", { for: "clocked" }, " Turn clock: "),
      turnSeconds,
      h("label", { for: "turn-seconds" }, " s per move (then the default move is made and the seat is away)")
    ),
    windowRow,
    h("p", {}, h("label", { for: "bot-delay" }, "Bots think for (ms) "), botDelay),
    h("p", {}, h("button", { type: "submit", id: "create-table", "data-key": "create-table" }, "Create the table"))
  );
}
function joinPage(table, code) {
  const name = h("input", { id: "join-name", required: true, maxlength: 40, "data-key": "join-name" });
  const submit = async (event) => {
    event.preventDefault();
    const joined = ok(
      await api.POST("/v1/tables/{table_id}/join", {
        params: { path: { table_id: table } },
        body: { name: name.value.trim(), ...code ? { code } : {} },
        headers: key()
      })
    );
    hold(table, { seat: joined.seat, token: joined.token });
    location.hash = `#/table/${table}`;
  };
  render(
    main,
    h("h2", {}, "Take a seat"),
    h(
      "form",
      { id: "join", onsubmit: (e) => attempt(() => submit(e)) },
      h("p", {}, h("label", { for: "join-name" }, "Your name "), name),
      h("p", {}, h("button", { type: "submit", id: "join-table", "data-key": "join-table" }, "Join"))
    )
  );
  name.focus();
}
function notOlder(shown2, read) {
  return shown2?.last_event === void 0 || (read.last_event ?? 0) >= shown2.last_event;
}
var shown;
function leaveTable() {
  shown?.stream?.close();
  if (shown?.refreshing) clearTimeout(shown.refreshing);
  shown = void 0;
}
async function tablePage(id) {
  const state = { id, feed: [], picked: /* @__PURE__ */ new Set(), melds: [], lastId: "" };
  shown = state;
  const mine2 = held(id);
  state.table = ok(await api.GET("/v1/tables/{table_id}", { params: { path: { table_id: id } } }));
  if (mine2.token !== void 0 && mine2.seat !== void 0) {
    state.view = ok(
      await api.GET("/v1/tables/{table_id}/seats/{seat}", {
        params: { path: { table_id: id, seat: mine2.seat } },
        headers: bearer(mine2.token)
      })
    );
  }
  const last = state.table.last_event ?? 0;
  const recent = ok(
    await api.GET("/v1/tables/{table_id}/events", {
      params: { path: { table_id: id }, query: { after: Math.max(0, last - 20), limit: 100 } }
    })
  );
  for (const event of recent.events ?? []) state.feed.unshift(describe(event, state.table));
  state.lastId = String(last);
  draw();
  await follow(state);
}
async function follow(state) {
  const mine2 = held(state.id);
  let url = `/v1/tables/${state.id}/stream?after=${state.lastId}`;
  if (mine2.token !== void 0 && mine2.seat !== void 0) {
    const ticket = ok(
      await api.POST("/v1/tables/{table_id}/seats/{seat}/tickets", {
        params: { path: { table_id: state.id, seat: mine2.seat } },
        headers: bearer(mine2.token)
      })
    );
    url = `${ticket.stream}&after=${state.lastId}`;
  }
  if (shown !== state) return;
  const stream = new EventSource(url);
  state.stream = stream;
  stream.onmessage = (message) => {
    state.lastId = message.lastEventId || state.lastId;
    const event = JSON.parse(message.data);
    state.feed.unshift(describe(event, state.table));
    state.feed.length = Math.min(state.feed.length, 60);
    refreshSoon(state);
  };
  stream.addEventListener("seat", (message) => {
    showView(state, JSON.parse(message.data));
    draw();
  });
  stream.addEventListener("events-gone", () => {
    state.rewound = true;
    refreshSoon(state);
  });
  stream.addEventListener("ticket-invalid", () => {
    stream.close();
    if (shown === state) void attempt(() => follow(state));
  });
}
function refreshSoon(state) {
  if (state.refreshing) return;
  state.refreshing = window.setTimeout(async () => {
    state.refreshing = void 0;
    await attempt(async () => {
      const table = ok(await api.GET("/v1/tables/{table_id}", { params: { path: { table_id: state.id } } }));
      if (state.rewound || notOlder(state.table, table)) state.table = table;
      state.rewound = false;
      if (shown === state) draw();
    });
  }, 60);
}
async function reread(state) {
  const mine2 = held(state.id);
  const [table, view] = await Promise.all([
    api.GET("/v1/tables/{table_id}", { params: { path: { table_id: state.id } } }).then(ok),
    mine2.token !== void 0 && mine2.seat !== void 0 ? api.GET("/v1/tables/{table_id}/seats/{seat}", {
      params: { path: { table_id: state.id, seat: mine2.seat } },
      headers: bearer(mine2.token)
    }).then(ok) : Promise.resolve(void 0)
  ]);
  if (shown !== state) return;
  if (notOlder(state.table, table)) state.table = table;
  if (view && notOlder(state.view, view)) showView(state, view);
  draw();
}
function showView(state, view) {
  const scope = (v) => JSON.stringify([v?.hand, v?.move, v?.exchange, v?.to_choose, v?.pending]);
  if (scope(view) !== scope(state.view)) state.picked.clear();
  state.view = view;
}
function draw() {
  const state = shown;
  if (!state?.table) return;
  const table = state.table;
  const mine2 = held(state.id);
  const act = async (what) => {
    await attempt(async () => {
      await what();
      say("");
      await reread(state);
    });
  };
  const seats = table.seats ?? [];
  const round = table.round;
  const waiting = new Set(table.awaiting?.seats ?? []);
  render(
    main,
    h(
      "section",
      { class: "head", "aria-label": "table", id: "table", "data-last-event": table.last_event, "data-view-event": state.view?.last_event ?? "" },
      h("h2", {}, `${table.variant} · ${table.game}`, round ? ` · round ${round.number}` : ""),
      h("p", { id: "awaiting" }, awaitingText(table), clock(table.awaiting?.until_ms)),
      h(
        "ol",
        { class: "seats", start: 0, id: "seats" },
        seats.map(
          (s, i) => h(
            "li",
            { class: [waiting.has(i) ? "waiting" : "", i === mine2.seat ? "me" : ""].join(" "), "data-seat": i },
            h("span", { class: "name" }, s.name ?? "open seat"),
            i === mine2.seat ? " (you)" : "",
            i === table.dealer ? " · dealer" : "",
            s.cards !== void 0 && round ? ` · ${s.cards} cards` : "",
            s.chips !== void 0 && s.chips !== null ? ` · ${s.chips} chips` : "",
            s.wins !== void 0 ? ` · ${s.wins} wins` : "",
            s.points !== void 0 && table.game !== "my-ship-sails" ? ` · ${s.points} points` : "",
            s.laid_down ? " · laid down" : "",
            badges(s),
            waiting.has(i) ? h("span", { class: "badge" }, "to move") : "",
            waiting.has(i) ? clock(s.until_ms) : ""
          )
        )
      )
    ),
    hostPanel(state, act),
    gamePanel({ table, view: state.view, picked: state.picked, melds: state.melds, act, draw, id: state.id }),
    resultPanel(table),
    h(
      "section",
      { class: "side" },
      h("h3", {}, "Standings"),
      h(
        "ol",
        { id: "standings" },
        (table.standings ?? []).map(
          (s) => h("li", {}, `${s.name ?? "open"}: `, table.game === "my-ship-sails" ? `${s.wins} wins` : `${s.points} points`, s.chips ? `, ${s.chips} chips` : "")
        )
      ),
      h("h3", {}, "Events"),
      h("ol", { id: "feed", reversed: true, "aria-live": "polite" }, state.feed.slice(0, 30).map((line) => h("li", {}, line)))
    )
  );
}
function badges(seat) {
  const out = [];
  if (seat.bot) out.push(h("span", { class: "badge bot", title: `a ${seat.bot} bot plays this seat` }, `bot: ${seat.bot}`));
  if (seat.away || seat.connected === false) out.push(h("span", { class: "badge away" }, "away"));
  return out;
}
function awaitingText(table) {
  const names = (table.awaiting?.seats ?? []).map((s) => table.seats?.[s]?.name ?? `seat ${s}`);
  const action2 = table.awaiting?.action ?? "";
  if (table.match?.status && table.match.status !== "in-progress") return `The match is over (${table.match.status}).`;
  if ((table.open_seats ?? []).length > 0) return `Waiting for players: seats ${table.open_seats?.join(", ")} are open.`;
  if (action2 === "deal") return "Waiting for the host to deal.";
  return names.length ? `Waiting for ${names.join(", ")} to ${action2}.` : action2;
}
function clock(until) {
  if (!until) return "";
  const left = Math.max(0, Math.ceil((until - Date.now()) / 1e3));
  return h("span", { class: "clock", "data-until": until }, ` ⏱ ${left} s`);
}
setInterval(() => {
  for (const element of document.querySelectorAll(".clock")) {
    const left = Math.max(0, Math.ceil((Number(element.dataset.until) - Date.now()) / 1e3));
    element.textContent = ` ⏱ ${left} s`;
  }
}, 500);
function hostPanel(state, act) {
  const mine2 = held(state.id);
  const table = state.table;
  const links = (mine2.codes ?? []).filter((c) => c.seat === null || (table.open_seats ?? []).includes(c.seat));
  const share = links.map((c) => {
    const url = `${location.origin}/play#/join/${state.id}/${c.code}`;
    return h(
      "li",
      {},
      c.seat === null ? "Any open seat: " : `Seat ${c.seat}: `,
      h("input", { readonly: true, value: url, class: "link", "aria-label": `join link for seat ${c.seat}`, "data-seat": c.seat }),
      " ",
      h("button", { type: "button", onclick: () => navigator.clipboard?.writeText(url), "data-key": `copy-${c.seat}` }, "Copy")
    );
  });
  const parts = [];
  if (share.length) parts.push(h("p", {}, "Send each friend a link: it takes one seat."), h("ul", { id: "links" }, share));
  if (mine2.host) {
    const canDeal = (table.open_seats ?? []).length === 0 && table.match?.status === "in-progress" && (table.round === null || table.round === void 0 || table.round.status === "over");
    if (canDeal) {
      parts.push(
        h(
          "button",
          {
            id: "deal",
            "data-key": "deal",
            onclick: () => act(async () => {
              ok(await api.POST("/v1/tables/{table_id}/rounds", { params: { path: { table_id: state.id } }, headers: { ...bearer(mine2.host), ...key() } }));
            })
          },
          table.round ? "Deal the next round" : "Deal"
        )
      );
    }
  }
  return parts.length ? h("section", { class: "host", "aria-label": "host" }, parts) : "";
}
function resultPanel(table) {
  const result = table.last_result;
  if (!result) return "";
  const seats = table.seats ?? [];
  const name = (s) => seats[Number(s)]?.name ?? `seat ${s}`;
  const winners = result.winners ?? (result.winner !== void 0 && result.winner !== null ? [result.winner] : []);
  const out = result.out;
  const lines = [
    h("h3", {}, `Round ${result.round} result`),
    h(
      "p",
      { id: "result-winners" },
      winners.length ? `Won by ${winners.map(name).join(", ")}` : out !== void 0 && out !== null ? `${name(out)} went out` : "No winner",
      result.abandoned ? " (abandoned)" : ""
    )
  ];
  const perSeat = ["chips", "points", "cards_left", "penalties"].filter((k) => Array.isArray(result[k]) && result[k].length === seats.length);
  if (perSeat.length) {
    lines.push(
      h(
        "table",
        { class: "result" },
        h("tr", {}, h("th", {}, "seat"), perSeat.map((k) => h("th", {}, k.replace("_", " ")))),
        seats.map((s, i) => h("tr", {}, h("td", {}, s.name ?? ""), perSeat.map((k) => h("td", {}, String(result[k][i] ?? "")))))
      )
    );
  }
  for (const shown2 of result.hands ?? []) {
    lines.push(h("p", {}, `${name(shown2.seat)} showed ${shown2.cards.join(" ")}`));
  }
  for (const [k, v] of Object.entries(result)) {
    if (/proof|seed|commit/.test(k)) lines.push(h("details", { class: "proof" }, h("summary", {}, `Deal proof (${k})`), h("pre", {}, JSON.stringify(v, null, 1))));
  }
  return h("section", { class: "result", id: "result", "aria-label": "last result" }, lines);
}
document.addEventListener("keydown", (event) => {
  const target = event.target;
  if (target.closest("input, select, textarea") || event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
    const cards = [...document.querySelectorAll("#hand button")];
    const at = cards.indexOf(target);
    if (cards.length) {
      const next = at < 0 ? 0 : (at + (event.key === "ArrowRight" ? 1 : cards.length - 1)) % cards.length;
      cards[next].focus();
      event.preventDefault();
    }
    return;
  }
  const button = document.querySelector(`button[data-shortcut="${CSS.escape(event.key.toLowerCase())}"]:not([disabled])`);
  if (button) {
    event.preventDefault();
    button.click();
  }
});
async function route() {
  leaveTable();
  say("");
  const parts = location.hash.replace(/^#\/?/, "").split("/");
  if (parts[0] === "table" && parts[1]) return tablePage(parts[1]);
  if (parts[0] === "join" && parts[1]) return joinPage(parts[1], parts[2]);
  return lobby();
}
window.addEventListener("hashchange", () => void attempt(route));
void attempt(route);
