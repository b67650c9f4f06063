// ../clients/typescript/node_modules/openapi-fetch/dist/index.mjs
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

// ../clients/typescript/src/api.ts
function createApi(base, options = {}) {
  return createClient({
    baseUrl: trimBase(base),
    ...options.token === void 0 ? {} : { headers: bearer(options.token) },
    ...options.fetch === void 0 ? {} : { fetch: options.fetch }
  });
}
var bearer = (token) => ({ Authorization: `Bearer ${token}` });
var Refused = class extends Error {
  constructor(status2, problem) {
    super(`${status2} ${problem.code ?? ""}: ${problem.detail ?? problem.title ?? ""}`.trim());
    this.status = status2;
    this.problem = problem;
    this.name = "Refused";
    this.code = problem.code ?? void 0;
  }
};
function ok(answer) {
  if (answer.error !== void 0 || answer.data === void 0) {
    const problem = typeof answer.error === "object" && answer.error !== null ? answer.error : {};
    throw new Refused(answer.response.status, problem);
  }
  return answer.data;
}
function trimBase(base) {
  return base.replace(/\/+$/, "");
}

// ../clients/typescript/src/live.ts
var WORKED_MS = 1e3;
var BATCH_MS = 20;
var Live = class {
  /** Use {@link connectSeat} or {@link connectTable}. */
  constructor(base, tableId, credentials, options = {}) {
    this.listeners = {
      view: /* @__PURE__ */ new Set(),
      table: /* @__PURE__ */ new Set(),
      event: /* @__PURE__ */ new Set(),
      gap: /* @__PURE__ */ new Set(),
      presence: /* @__PURE__ */ new Set(),
      status: /* @__PURE__ */ new Set()
    };
    this.failures = 0;
    this.opened = false;
    this.seq = 0;
    this.cursor = "0";
    this.viewText = "";
    this.rewound = { view: false, table: false };
    this.tableRead = "idle";
    this.currentStatus = "connecting";
    this.base = trimBase(base);
    this.tableId = tableId;
    this.seat = credentials?.seat;
    this.token = credentials?.token;
    this.api = createApi(this.base, { token: this.token, fetch: options.fetch });
    this.options = {
      followTable: options.followTable ?? true,
      minDelayMs: options.minDelayMs ?? 500,
      maxDelayMs: options.maxDelayMs ?? 15e3
    };
    const Source = options.EventSource ?? globalThis.EventSource;
    if (Source === void 0) {
      throw new TypeError("No EventSource here: pass options.EventSource (in node, e.g. the eventsource package's)");
    }
    this.Source = Source;
  }
  /** Where the connection stands now. */
  get status() {
    return this.currentStatus;
  }
  /** Why it closed, once `status` is `closed`. */
  get ended() {
    return this.ending;
  }
  /** The id the next stream starts after (what `Last-Event-ID` would say). */
  get lastEventId() {
    return this.cursor;
  }
  /** Call `listener` with each value of `type` from now on; returns the
   * function that stops it. Subscribe right after `await connectSeat(…)`:
   * nothing is handed before the page's code after the `await` runs. */
  on(type, listener) {
    const set = this.listeners[type];
    set.add(listener);
    return () => set.delete(listener);
  }
  /** Read the seat's view (and the table's) again, now: after the page's own
   * move, say, whose answer can come before the stream's frame. What is read
   * is kept only if it is not older than what the connection holds. */
  async refresh() {
    await Promise.all([this.readView(), this.options.followTable ? this.readTable() : void 0]);
  }
  /** Offer a view the page got by a request of its own: kept, and handed to
   * the `view` listeners, only if it is not older than the one held. */
  offer(view) {
    this.takeView(view, false);
  }
  /** Close the stream for good. */
  close() {
    this.finish({ reason: "closed" });
  }
  /** Read the views, then open the stream (used once, by the connect functions). */
  async start(after, backlog) {
    const needTable = this.options.followTable || after === void 0 && this.seat === void 0;
    const [view, table] = await Promise.allSettled([
      this.seat === void 0 ? void 0 : this.readView(true),
      needTable ? this.readTable(true) : void 0
    ]);
    for (const read of [view, table]) if (read.status === "rejected") throw read.reason;
    if (after === void 0) {
      const last = Math.max(this.view?.last_event ?? 0, this.table?.last_event ?? 0);
      after = Math.max(0, last - Math.max(0, backlog));
    }
    this.cursor = String(after);
    this.seq = Number.parseInt(this.cursor, 10) || 0;
    setTimeout(() => void this.open(), 0);
  }
  // ----- the stream --------------------------------------------------------
  async open() {
    if (this.closed()) return;
    this.retryTimer = void 0;
    this.setStatus(this.opened ? "reconnecting" : "connecting");
    let url;
    try {
      url = await this.streamUrl();
    } catch (error) {
      if (error instanceof Refused && refusedForGood(error.status)) {
        const gone = await this.tableGone();
        if (this.closed()) return;
        this.finish(gone ? { reason: "table-deleted" } : { reason: "refused", problem: error.problem });
      } else {
        this.retry();
      }
      return;
    }
    if (this.closed()) return;
    const stream = new this.Source(url);
    this.stream = stream;
    let since;
    const mine = (handler) => (message) => {
      if (this.stream !== stream) return;
      since ?? (since = Date.now());
      handler(message);
    };
    const worked = () => since !== void 0 && Date.now() - since >= WORKED_MS;
    let answered = false;
    stream.onopen = () => {
      if (this.stream !== stream) return;
      answered = true;
      this.opened = true;
      this.setStatus("open");
    };
    stream.onmessage = mine((message) => this.takeEvent(message));
    stream.addEventListener("seat", mine((message) => this.takeView(JSON.parse(message.data), true)));
    stream.addEventListener("events-gone", mine((message) => this.takeGap(message)));
    stream.addEventListener("heartbeat", mine(() => void 0));
    for (const type of ["seat-connected", "seat-disconnected"]) {
      stream.addEventListener(type, mine((message) => this.takePresence(JSON.parse(message.data))));
    }
    stream.addEventListener("ticket-invalid", mine(() => this.reopen(worked())));
    stream.addEventListener("table-deleted", mine(() => this.finish({ reason: "table-deleted" })));
    stream.addEventListener("seat-closed", mine(() => this.finish({ reason: "seat-closed" })));
    stream.onerror = () => {
      if (this.stream !== stream) return;
      if (answered) {
        this.reopen(worked());
        return;
      }
      stream.close();
      void this.tableGone().then((gone) => {
        if (this.stream !== stream) return;
        if (gone) this.finish({ reason: "table-deleted" });
        else this.reopen(false);
      });
    };
  }
  async streamUrl() {
    const after = `after=${encodeURIComponent(this.cursor)}`;
    if (this.seat === void 0) {
      return `${this.base}/v1/tables/${encodeURIComponent(this.tableId)}/stream?${after}`;
    }
    const ticket = ok(
      await this.api.POST("/v1/tables/{table_id}/seats/{seat}/tickets", {
        params: { path: { table_id: this.tableId, seat: this.seat } }
      })
    );
    if (ticket.stream === void 0) throw new TypeError("the ticket's answer has no stream URL");
    return `${this.base}${ticket.stream}&${after}`;
  }
  /** Leave the current stream and open another: at once after a stream that
   * worked, else after a pause that grows with each failure in a row. */
  reopen(worked) {
    this.stream?.close();
    this.stream = void 0;
    if (this.currentStatus === "closed") return;
    if (worked) {
      this.failures = 0;
      this.setStatus("reconnecting");
      void this.open();
    } else {
      this.retry();
    }
  }
  retry() {
    if (this.currentStatus === "closed" || this.retryTimer !== void 0) return;
    this.setStatus("reconnecting");
    const pause = Math.min(this.options.maxDelayMs, this.options.minDelayMs * 2 ** this.failures);
    this.failures += 1;
    this.retryTimer = setTimeout(() => void this.open(), pause * (0.5 + Math.random() / 2));
  }
  finish(ended) {
    if (this.currentStatus === "closed") return;
    this.stream?.close();
    this.stream = void 0;
    if (this.retryTimer !== void 0) clearTimeout(this.retryTimer);
    this.retryTimer = void 0;
    this.ending = ended;
    this.currentStatus = "closed";
    this.emit("status", { status: "closed", ended });
  }
  closed() {
    return this.currentStatus === "closed";
  }
  setStatus(status2) {
    if (status2 === this.currentStatus || this.currentStatus === "closed") return;
    this.currentStatus = status2;
    this.emit("status", { status: status2 });
  }
  // ----- what the stream brings -------------------------------------------
  takeEvent(message) {
    const event = JSON.parse(message.data);
    if (typeof event.seq !== "number" || event.seq <= this.seq) return;
    this.seq = event.seq;
    this.cursor = message.lastEventId || String(event.seq);
    this.emit("event", event);
    this.tableSoon();
  }
  takeGap(message) {
    const gone = JSON.parse(message.data);
    this.seq = gone.last_event;
    this.cursor = message.lastEventId || String(gone.last_event);
    this.rewound = { view: true, table: true };
    this.emit("gap", gone);
    this.tableSoon();
  }
  takePresence(change) {
    const seats = this.table?.seats;
    const seat = seats?.find((s) => s.seat === change.seat);
    if (this.table && seats && seat) {
      const connected = change.type === "seat-connected";
      if (seat.connected !== connected) {
        const table = structuredClone(this.table);
        for (const s of table.seats) if (s.seat === change.seat) s.connected = connected;
        this.table = table;
        this.emit("table", table);
      }
    }
    this.emit("presence", change);
  }
  /** Keep `view` if it is not older than the one held (or after a gap, when
   * it comes from the stream); hand it on when it differs. */
  takeView(view, streamed) {
    const forced = streamed && this.rewound.view;
    if (!forced && !notOlder(this.view, view)) return;
    if (streamed) this.rewound.view = false;
    const text = JSON.stringify(view);
    if (text === this.viewText) return;
    this.viewText = text;
    this.view = view;
    this.emit("view", view);
  }
  takeTable(table, forced) {
    if (!forced && !notOlder(this.table, table)) return;
    this.table = table;
    this.emit("table", table);
  }
  async readView(first = false) {
    if (this.seat === void 0) return;
    const answer = await this.api.GET("/v1/tables/{table_id}/seats/{seat}", {
      params: { path: { table_id: this.tableId, seat: this.seat } }
    });
    if (first) {
      this.takeView(ok(answer), false);
    } else if (answer.data !== void 0) {
      this.takeView(answer.data, false);
    }
  }
  /** Whether the table is gone (its public view is 404 `table-not-found`). */
  async tableGone() {
    try {
      const answer = await this.api.GET("/v1/tables/{table_id}", { params: { path: { table_id: this.tableId } } });
      return answer.response.status === 404 && answer.error?.code === "table-not-found";
    } catch {
      return false;
    }
  }
  async readTable(first = false) {
    const forced = this.rewound.table;
    this.rewound.table = false;
    const answer = await this.api.GET("/v1/tables/{table_id}", { params: { path: { table_id: this.tableId } } });
    if (first) {
      this.takeTable(ok(answer), true);
    } else if (answer.data !== void 0) {
      this.takeTable(answer.data, forced);
    }
  }
  /** Read the table after this batch of events (one read in flight at a
   * time; events meanwhile ask for one more after it). */
  tableSoon() {
    if (!this.options.followTable || this.currentStatus === "closed") return;
    if (this.tableRead !== "idle") {
      this.tableRead = "again";
      return;
    }
    this.tableRead = "reading";
    setTimeout(async () => {
      try {
        await this.readTable();
      } catch {
      }
      const again = this.tableRead === "again";
      this.tableRead = "idle";
      if (again) this.tableSoon();
    }, BATCH_MS);
  }
  emit(type, value) {
    const set = this.listeners[type];
    for (const listener of [...set]) {
      try {
        listener(value);
      } catch (error) {
        setTimeout(() => {
          throw error;
        }, 0);
      }
    }
  }
};
function notOlder(held2, read) {
  return held2?.last_event === void 0 || (read.last_event ?? 0) >= held2.last_event;
}
function refusedForGood(status2) {
  return status2 === 401 || status2 === 403 || status2 === 404 || status2 === 410;
}
async function connectSeat(base, table, credentials, options = {}) {
  const live = new Live(base, table, credentials, options);
  await live.start(options.after, options.backlog ?? 0);
  return live;
}
async function connectTable(base, table, options = {}) {
  const live = new Live(base, table, void 0, options);
  await live.start(options.after, options.backlog ?? 0);
  return live;
}

// src/api.ts
var api = createApi(location.origin);
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
    } else if (name === "style") {
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
var SVG = "http://www.w3.org/2000/svg";
function icon(paths, cls = "", title2) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", `icon ${cls}`.trim());
  if (title2) {
    svg.setAttribute("role", "img");
    const name = document.createElementNS(SVG, "title");
    name.textContent = title2;
    svg.append(name);
  } else {
    svg.setAttribute("aria-hidden", "true");
  }
  for (const d of paths) {
    const path2 = document.createElementNS(SVG, "path");
    path2.setAttribute("d", d);
    svg.append(path2);
  }
  return svg;
}
var ICONS = {
  clock: ["M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18z", "M12 7v5l3.5 2"],
  bot: ["M6 9h12v10H6z", "M12 5v4", "M9.5 13.5h.01", "M14.5 13.5h.01", "M10 16.5h4", "M3.5 13v3", "M20.5 13v3"],
  left: ["M19 12H6", "M11 6l-6 6l6 6"],
  right: ["M5 12h13", "M13 6l6 6l-6 6"],
  swap: ["M4 8h14", "M14 4l4 4l-4 4", "M20 16H6", "M10 12l-4 4l4 4"],
  crown: ["M4 18h16", "M4 16l-1-9l5 4l4-6l4 6l5-4l-1 9z"],
  copy: ["M9 9h10v11H9z", "M5 15V4h10"],
  deal: ["M7 4h10v16H7z", "M3 7l4-1", "M21 7l-4-1"]
};

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
var rankText = (card) => rankOf(card) === "T" ? "10" : rankOf(card);
function label(card) {
  if (card === "JK") return "Joker";
  return rankText(card) + (SUIT_SIGN[suitOf(card)] ?? suitOf(card));
}
function spoken(card) {
  if (card === "JK") return "joker";
  const names = { A: "ace", K: "king", Q: "queen", J: "jack", T: "ten" };
  return `${names[rankOf(card)] ?? rankOf(card)} of ${SUIT_NAME[suitOf(card)] ?? suitOf(card)}`;
}
var red = (card) => "HD".includes(suitOf(card)) && card !== "JK";
function face(card, size = "small", more = {}) {
  const joker = card === "JK";
  const cls = ["card", "face", size, red(card) ? "red" : "black", joker ? "joker" : "", String(more.class ?? "")].join(" ").trim();
  return h(
    "span",
    { "aria-label": spoken(card), role: "img", ...more, class: cls, "data-card": card },
    h("span", { class: "corner", "aria-hidden": "true" }, joker ? "J" : rankText(card), h("br"), joker ? "★" : SUIT_SIGN[suitOf(card)]),
    size === "mini" ? "" : h("span", { class: "pip", "aria-hidden": "true" }, joker ? "★" : SUIT_SIGN[suitOf(card)])
  );
}
function back(size = "small", label2) {
  return h("span", { class: `card back ${size}`, "aria-hidden": label2 === void 0 ? "true" : void 0 }, label2 ?? "");
}

// src/words.ts
function count(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}
function list(names) {
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}
function signed(n) {
  return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "0";
}
var PRESETS = {
  classic: "classic",
  circle: "closed circle",
  "mein-schiff": "Mein Schiff segelt",
  "pass-two": "pass two",
  "pass-right": "pass right",
  alternate: "left, then right",
  "my-star-shines": "My Star Shines",
  whehee: "Whehee",
  foster: "Foster",
  ochse: "Ochse, leg dich!",
  matrimony: "Matrimony",
  sevens: "Sevens",
  parliament: "Parliament",
  "fan-tan": "Fan Tan",
  dominoes: "Dominoes",
  "sevens-any-seven": "any seven opens",
  "sevens-corner": "turn the corner",
  "sevens-voluntary": "voluntary passes",
  "sevens-last-card": "last card",
  "sevens-penalty": "penalty points",
  "fan-tan-two-decks": "Fan Tan, two decks",
  "may-i": "May I?",
  "may-i-jokers": "with jokers"
};
var GAMES = { "my-ship-sails": "My Ship Sails", sevens: "Sevens", "may-i": "May I?" };
var gameName = (game) => GAMES[game] ?? game.replace(/-/g, " ");
var presetName = (preset) => PRESETS[preset] ?? preset.replace(/-/g, " ");
function title(game, preset) {
  const name = presetName(preset);
  return name.toLowerCase() === gameName(game).toLowerCase() ? gameName(game) : `${gameName(game)} · ${name}`;
}
var NUMBERS = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];
var spell = (n) => NUMBERS[n] ?? String(n);
function contract(sets, runs) {
  const parts = [];
  if (sets) parts.push(`${spell(sets)} ${sets === 1 ? "set" : "sets"}`);
  if (runs) parts.push(`${spell(runs)} ${runs === 1 ? "run" : "runs"}`);
  return list(parts);
}
function goal(table) {
  const o = table.options;
  if (table.game === "sevens") {
    const pays = o.points === "none" && Number(o.pass_chips ?? 1) > 0;
    const corner = o.turn_the_corner ? ", and round the corner" : "";
    return `Be the first to play all your cards. Rows grow from the sevens, one rank at a time up to the ace and down to the two${corner}. ` + (pays ? `No card that fits? Pass and pay ${count(Number(o.pass_chips ?? 1), "chip")} into the pot: the winner takes it.` : "No card that fits? Pass. The cards left in the other hands are scored.");
  }
  if (table.game === "may-i") {
    const round = table.round;
    const want = round ? `this round's contract (${contract(round.contract_sets, round.contract_runs)})` : "each round's contract";
    return `Lay down ${want}, lay off on any meld, and go out first (+20). Cards left in your hand count against you. Ask “May I?” for a discard you want.`;
  }
  const win = Number(o.win_count ?? o.hand_size ?? 7);
  const how = o.passing === "chain" ? "On your turn, pass one card to the player on your left" : o.passing === "swap" ? "Swap one card blind with your neighbour, round the table" : `Everyone passes ${count(Number(o.pass_count ?? 1), "card")} at once, ${direction(table) ?? "left"}`;
  const call = o.declaration === "automatic" ? "the referee calls it for you" : `then call “${String(o.call ?? "My ship sails!")}”`;
  return `Collect ${win} cards of one suit. ${how}; ${call}.`;
}
function direction(table) {
  const d = table.round && "direction" in table.round ? table.round.direction : void 0;
  return d === "left" || d === "right" ? d : void 0;
}
function waitingFor(table, me) {
  const names = (table.awaiting?.seats ?? []).map((s) => s === me ? "you" : nameOf(table, s));
  const action2 = table.awaiting?.action ?? "";
  const status2 = table.match?.status;
  if (status2 && status2 !== "in-progress") return "The match is over.";
  const open = table.open_seats ?? [];
  if (open.length > 0) return `Waiting for players: ${count(open.length, "seat")} ${open.length === 1 ? "is" : "are"} open.`;
  if (action2 === "deal") return table.round ? "The round is over. The host deals the next one." : "Everyone is here. The host deals.";
  if (!names.length) return "";
  const verb = (table.game === "may-i" ? MAY_I_ACTIONS[action2] : void 0) ?? ACTIONS[action2] ?? action2.replace(/-/g, " ");
  const mine = me !== void 0 && (table.awaiting?.seats ?? []).includes(me);
  if (mine && names.length === 1) return "Your turn.";
  return `Waiting for ${list(names)} to ${verb}.`;
}
var ACTIONS = {
  pass: "choose a card to pass",
  play: "play",
  claim: "claim",
  claims: "claim (the claim window is open)"
};
var MAY_I_ACTIONS = {
  draw: "take or pass on the discard",
  "may-i": "ask or answer “May I?”",
  stock: "draw from the stock",
  play: "lay down, lay off or discard",
  final: "lay off"
};
function nameOf(table, seat) {
  if (seat === null || seat === void 0) return "nobody";
  return table.seats?.[seat]?.name ?? `seat ${seat + 1}`;
}
function describe(event, table) {
  const e = event;
  const who = (s) => typeof s === "number" && table ? nameOf(table, s) : typeof s === "number" ? `seat ${s + 1}` : "someone";
  const seat = typeof e.name === "string" ? e.name : who(e.seat);
  const card = typeof e.card === "string" ? ` ${label(e.card)}` : "";
  const round = typeof e.round === "number" ? `Round ${e.round}` : "The round";
  const winners = Array.isArray(e.winners) ? list(e.winners.map(who)) : "";
  const type = event.type;
  switch (event.type) {
    case "table-created":
      return "The table was set";
    case "first-dealer-drawn":
      return "Cards were drawn for the first dealer";
    case "seat-joined":
      return `${seat} sat down`;
    case "seat-left":
      return `${seat} left the table`;
    case "token-reissued":
      return `${seat} got a new key to their seat`;
    case "seat-bot":
      return `A bot plays for ${seat} now`;
    case "seat-bot-removed":
      return `${seat}'s bot left the seat`;
    case "round-dealt":
      return `${round} was dealt by ${who(e.dealer)}`;
    case "round-abandoned":
      return `${round} was abandoned`;
    case "move-timed-out":
      return `${seat} ran out of time: the referee moved for them`;
    case "seat-back":
      return `${seat} is back`;
    case "clock-paused":
      return "The clock is paused until someone plays";
    case "pass-chosen":
      return `${seat} chose a card to pass`;
    case "exchange-resolved":
      return `The cards went round (exchange ${e.exchange})`;
    case "claim-accepted":
      return `${seat} called it, and won`;
    case "claim-rejected":
      return `${seat} called too soon`;
    case "round-won":
      return table?.game === "sevens" ? `${who(e.winner)} played out and won ${round.toLowerCase()}` : `${winners || "Nobody"} won ${round.toLowerCase()}`;
    case "round-void":
      return `${round} ended with no winner`;
    case "card-played":
      return `${seat} played${card}`;
    case "passed":
      return e.chips ? `${seat} passed and paid ${count(Number(e.chips), "chip")}` : `${seat} passed`;
    case "last-card-missed":
      return `${seat} forgot to say “last card” and paid ${count(Number(e.chips ?? 2), "chip")}`;
    case "discard-taken":
      return `${seat} took the discard${card}`;
    case "discard-declined":
      return `${seat} passed on the discard${card}`;
    case "stock-drawn":
      return Number(e.count ?? 1) > 1 ? `${seat} drew ${count(Number(e.count), "card")} from the stock` : `${seat} drew from the stock`;
    case "laid-down":
      return `${seat} laid down their contract`;
    case "laid-off":
      return `${seat} laid off${card}`;
    case "discarded":
      return `${seat} discarded${card}`;
    case "may-i-offered":
      return `The discard${card} is up for “May I?”`;
    case "may-i-asked":
      return `${seat} asked “May I?” for${card}`;
    case "may-i-answered":
      return `${seat} ${e.allow ? "allowed it" : "said no"}`;
    case "may-i-given":
      return `${seat} took${card} and ${count(Number(e.stock_cards ?? 0), "card")} from the stock`;
    case "may-i-lapsed":
      return "Nobody asked for the discard";
    case "stock-reshuffled":
      return "The discards were shuffled into a new stock";
    case "went-out":
      return `${seat} went out`;
    case "round-blocked":
      return `${round} is blocked: nobody can go out`;
    case "lay-off-done":
      return e.auto ? `${seat} had nothing to lay off` : `${seat} finished laying off`;
    case "round-over":
      return `${round} is over${typeof e.out === "number" ? `: ${who(e.out)} went out` : ""}`;
    case "match-won":
      return `${winners || "Nobody"} won the match`;
    case "match-finished":
      return `The match is over${winners ? `: ${winners} won` : ""}`;
    case "match-abandoned":
      return "The match was ended";
    default:
      return type.replace(/-/g, " ").replace(/^./, (c) => c.toUpperCase());
  }
}

// src/seats.ts
function presence(seat) {
  if (seat.open || seat.name === null) return "open";
  if (seat.bot) return "bot";
  if (seat.away) return "away";
  return seat.connected ? "online" : "offline";
}
var PRESENCE_WORDS = {
  open: ["open seat", "Nobody has taken this seat yet"],
  bot: ["bot", "A bot plays this seat"],
  away: ["away", "Ran out of time: the referee moves for this seat until it plays again"],
  online: ["here", "Connected now"],
  offline: ["not here", "Not connected for 15 seconds or more"]
};
function byRank(seats) {
  return [...seats ?? []].sort((a, b) => a.rank - b.rank || a.seat - b.seat);
}
function score(table, seat) {
  const o = table.options;
  const chips = "chips" in seat && typeof seat.chips === "number" ? seat.chips : void 0;
  const points = "points" in seat && typeof seat.points === "number" ? seat.points : 0;
  const chipWords = (n) => `${signed(n)} ${Math.abs(n) === 1 ? "chip" : "chips"}`;
  if (table.game === "sevens") {
    if (o.points !== "none") return count(points, "point");
    const paid = "paid" in seat && typeof seat.paid === "number" ? seat.paid : 0;
    return chipWords((chips ?? 0) - paid);
  }
  if (table.game === "may-i") return count(points, "point");
  const wins = count("wins" in seat && typeof seat.wins === "number" ? seat.wins : 0, "win");
  return chips === void 0 ? wins : `${wins}, ${chipWords(chips)}`;
}
function place(seat, me, seats) {
  const turn = (seat - me + seats) % seats;
  const angle = Math.PI / 2 + turn * 2 * Math.PI / seats;
  return { x: Math.round(50 + 40 * Math.cos(angle)), y: Math.round(50 + 44 * Math.sin(angle)) };
}
var HUES = [210, 12, 140, 280, 40, 330, 180, 95, 250, 0];
function seatRing(table, me, ownUntil) {
  const seats = table.seats ?? [];
  const waiting = new Set(table.awaiting?.seats ?? []);
  const playing = Boolean(table.round && table.round.status !== "over");
  const bottom = me ?? 0;
  return h(
    "ol",
    { class: "ring", id: "seats", "aria-label": "the seats, clockwise" },
    seats.map((seat, i) => {
      const state = presence(seat);
      const [word, why] = PRESENCE_WORDS[state];
      const { x, y } = place(i, bottom, seats.length);
      const turn = (i - bottom + seats.length) % seats.length;
      const name = seat.name ?? "Open seat";
      const until = !waiting.has(i) ? void 0 : i === me && ownUntil ? ownUntil : seat.until_ms ?? table.awaiting?.until_ms;
      const cards = playing && "cards" in seat && typeof seat.cards === "number" ? seat.cards : void 0;
      const chosen = "chosen" in seat && seat.chosen === true && table.round?.status === "passing";
      const laid = "laid_down" in seat && seat.laid_down === true;
      return h(
        "li",
        {
          class: ["seat", state, waiting.has(i) ? "waiting" : "", i === me ? "me" : "", i === table.round?.dealer ? "dealer" : ""].join(" "),
          "data-seat": i,
          "data-presence": state,
          style: `--x: ${x}%; --y: ${y}%; --order: ${turn === 0 ? seats.length : turn}; --hue: ${HUES[i % HUES.length]}`
        },
        h(
          "span",
          { class: "avatar", "aria-hidden": "true" },
          state === "bot" ? icon(ICONS.bot) : state === "open" ? "+" : initials(name)
        ),
        h("span", { class: "who" }, h("span", { class: "name", title: name }, name), i === me ? h("span", { class: "you" }, "(you)") : ""),
        h(
          "span",
          { class: "facts" },
          h("span", { class: `presence ${state}`, title: why }, word),
          i === table.round?.dealer ? h("span", { class: "dealer-chip", title: "the dealer this round" }, "D") : "",
          cards === void 0 ? "" : h("span", { class: "count", title: count(cards, "card") }, back("mini"), String(cards)),
          seat.name === null ? "" : h("span", { class: "score" }, score(table, seat)),
          chosen ? h("span", { class: "chosen", title: "has chosen" }, back("mini"), "ready") : "",
          laid ? h("span", { class: "laid", title: "has laid down its contract" }, "laid down") : ""
        ),
        waiting.has(i) ? h("span", { class: "turn-mark" }, until ? clock(until) : "to move") : ""
      );
    })
  );
}
function initials(name) {
  const words = name.trim().split(/\s+/).filter(Boolean);
  const letters = words.length > 1 ? words[0][0] + words[1][0] : name.slice(0, 2);
  return letters.toUpperCase();
}
function clock(until) {
  return h("span", { class: "clock", "data-until": until, title: "time left" }, icon(ICONS.clock), h("span", { class: "left" }, secondsLeft(until)));
}
function secondsLeft(until) {
  return `${Math.max(0, Math.ceil((until - Date.now()) / 1e3))} s`;
}
function tick() {
  for (const element of document.querySelectorAll(".clock[data-until]")) {
    const left = element.querySelector(".left");
    if (left) left.textContent = secondsLeft(Number(element.dataset.until));
  }
}

// src/games.ts
function hand(ctx, marked, onPick) {
  const cards = sorted(ctx.view?.hand ?? []);
  const fresh = [...ctx.fresh];
  return h(
    "div",
    { id: "hand", role: "group", "aria-label": `your hand, ${count(cards.length, "card")}`, style: `--cards: ${cards.length}` },
    cards.map((card, i) => {
      const playable = marked === "all" || marked.has(card);
      const picked = ctx.picked.has(`${card}#${i}`);
      const at = fresh.indexOf(card);
      const isFresh = at >= 0;
      if (isFresh) fresh.splice(at, 1);
      return h(
        "button",
        {
          type: "button",
          class: ["card", "face", "big", red(card) ? "red" : "black", card === "JK" ? "joker" : "", playable ? "playable" : "dim", picked ? "picked" : "", isFresh ? "fresh" : ""].join(" "),
          "data-card": card,
          "data-key": `card-${card}-${i}`,
          "aria-pressed": picked ? "true" : "false",
          "aria-label": spoken(card) + (isFresh ? ", just arrived" : "") + (playable ? "" : ", not playable now"),
          onclick: () => onPick(card, i)
        },
        h("span", { class: "corner", "aria-hidden": "true" }, card === "JK" ? "J" : label(card).slice(0, -1), h("br"), card === "JK" ? "★" : SUIT_SIGN[card.slice(-1)]),
        h("span", { class: "pip", "aria-hidden": "true" }, card === "JK" ? "★" : SUIT_SIGN[card.slice(-1)]),
        isFresh ? h("span", { class: "tag" }, "new") : ""
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
function action(id, text, shortcut, run, enabled = true, main2 = false) {
  return h(
    "button",
    {
      type: "button",
      class: main2 ? "action main" : "action",
      "data-action": id,
      "data-key": `action-${id}`,
      "data-shortcut": shortcut,
      "aria-keyshortcuts": shortcut.toUpperCase(),
      disabled: !enabled,
      onclick: run
    },
    text,
    h("kbd", {}, shortcut.toUpperCase())
  );
}
var auth = (ctx) => bearer(ctx.token ?? "");
var path = (ctx) => ({ table_id: ctx.id });
function gamePart(ctx) {
  if (ctx.table.game === "sevens") return sevens(ctx);
  if (ctx.table.game === "may-i") return mayI(ctx);
  return ship(ctx);
}
function ship(ctx) {
  const table = ctx.table;
  if (table.game !== "my-ship-sails") return { center: [] };
  const round = table.round;
  const view = ctx.view?.game === "my-ship-sails" ? ctx.view : void 0;
  const options = table.options;
  const countToPass = Number(options.pass_count ?? 1);
  if (!round) return { center: [] };
  const way = direction(table);
  const chosen = (table.seats ?? []).filter((s) => s.chosen).length;
  const choosers = round.choosers?.length ?? table.seats?.length ?? 0;
  const center = [
    h(
      "div",
      { class: "passing", id: "state" },
      h("span", { class: `way ${way ?? "swap"}` }, icon(way === "right" ? ICONS.right : way === "left" ? ICONS.left : ICONS.swap)),
      h(
        "span",
        {},
        round.status === "over" ? `The round is over after ${count(round.exchanges_resolved ?? 0, "exchange")}.` : `Exchange ${round.exchange ?? 1}: ${way ? `passing ${way}` : "passing round the table"} · ${chosen} of ${choosers} ready`
      )
    )
  ];
  if (round.window_closes_at_ms) {
    center.push(h("p", { class: "offer" }, "A claim is in: others may claim too until ", clock(round.window_closes_at_ms)));
  }
  for (const claim of round.claims ?? []) {
    center.push(h("p", { class: "shown" }, `${nameOf(table, claim.seat)} showed `, (claim.hand ?? []).map((c) => face(c, "small"))));
  }
  if (!view) return { center };
  const choosing = Boolean(view.to_choose) && round.status === "passing";
  const mine = [];
  if (view.pending?.length) {
    mine.push(h("span", { id: "pending", class: "pass-slot" }, "Your pass: ", view.pending.map((c) => face(c, "small")), " (waiting for the others)"));
  } else if (view.passed?.length && round.status !== "over") {
    mine.push(h("span", { id: "passed", class: "pass-slot" }, "You passed ", view.passed.map((c) => face(c, "small"))));
  }
  if (view.received?.length) {
    mine.push(h("span", { id: "received", class: "pass-slot" }, "You received ", view.received.map((c) => face(c, "small"))));
  }
  if (mine.length) center.push(h("div", { class: "mine-pass" }, mine));
  const bySuit = /* @__PURE__ */ new Map();
  for (const card of view.hand) bySuit.set(card.slice(-1), (bySuit.get(card.slice(-1)) ?? 0) + 1);
  const [best, most] = [...bySuit.entries()].sort((a, b) => b[1] - a[1] || "SHCD".indexOf(a[0]) - "SHCD".indexOf(b[0]))[0] ?? ["S", 0];
  const want = Number(options.win_count ?? 7);
  center.push(
    h(
      "p",
      { class: "progress", id: "progress" },
      `Your longest suit: ${SUIT_NAME[best]} `,
      h("span", { class: `suit-sign ${"HD".includes(best) ? "red" : ""}`, "aria-hidden": "true" }, SUIT_SIGN[best]),
      `, ${most} of ${want}`,
      most >= want ? ": call it!" : ""
    )
  );
  const cards = pickedCards(ctx);
  const actions = [
    action(
      "Pass",
      cards.length === countToPass ? `Pass ${cards.map(label).join(" ")}` : `Pass (pick ${countToPass === 1 ? "a card" : count(countToPass, "card")})`,
      "p",
      () => ctx.act(async () => {
        ok(
          await api.PUT("/v1/tables/{table_id}/rounds/{round_no}/exchanges/{exchange_no}/passes/{seat}", {
            params: { path: { ...path(ctx), round_no: round.number, exchange_no: view.exchange ?? 0, seat: view.seat } },
            body: { cards },
            headers: auth(ctx)
          })
        );
      }),
      choosing && cards.length === countToPass,
      choosing
    )
  ];
  if (options.declaration !== "automatic") {
    actions.push(
      action(
        "Claim",
        String(options.call ?? "My ship sails!"),
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
  const win = Number(options.win_count ?? 7);
  return {
    center,
    hand: hand(ctx, choosing ? "all" : /* @__PURE__ */ new Set(), (card, i) => choosing && toggle(ctx, card, i, countToPass)),
    actions,
    prompt: choosing ? `Pick ${countToPass === 1 ? "a card" : count(countToPass, "card")} to pass ${way ?? ""}, then Pass. Hold ${win} of one suit? Call it.`.replace("  ", " ") : view.pending?.length ? "Waiting for the others to choose." : ""
  };
}
var ROW_RANKS = "23456789TJQKA";
function rowRanks(low, high) {
  const a = ROW_RANKS.indexOf(low.slice(0, -1));
  const b = ROW_RANKS.indexOf(high.slice(0, -1));
  const held2 = /* @__PURE__ */ new Set();
  for (let i = a; ; i = (i + 1) % 13) {
    held2.add(ROW_RANKS[i]);
    if (i === b || held2.size === 13) break;
  }
  return held2;
}
function sevens(ctx) {
  const table = ctx.table;
  if (table.game !== "sevens") return { center: [] };
  const round = table.round;
  const view = ctx.view?.game === "sevens" ? ctx.view : void 0;
  const options = table.options;
  if (!round) return { center: [] };
  const decks = Number(options.decks ?? 1);
  const rows = round.layout ?? [];
  const drawn = [];
  for (const suit of "SHDC") {
    const started = rows.filter((r) => r.suit === suit);
    for (let copy = 0; copy < decks; copy++) {
      const row = started[copy];
      const ranks = row ? rowRanks(row.low, row.high) : /* @__PURE__ */ new Set();
      drawn.push(
        h(
          "div",
          { class: `row ${red(`7${suit}`) ? "red" : "black"}`, "data-suit": suit, role: "group", "aria-label": row ? `${SUIT_NAME[suit]}: ${label(row.low)} to ${label(row.high)}` : `${SUIT_NAME[suit]}: not started` },
          h("span", { class: "suit", "aria-hidden": "true" }, SUIT_SIGN[suit]),
          h(
            "span",
            { class: "slots" },
            [...ROW_RANKS].map(
              (rank) => ranks.has(rank) ? face(`${rank}${suit}`, "mini", { class: rank === "7" ? "seven" : "" }) : h("span", { class: `slot ${rank === "7" ? "seven" : ""}`, "aria-hidden": "true" }, rank === "T" ? "10" : rank)
            )
          )
        )
      );
    }
  }
  const pays = options.points === "none";
  const center = [
    h("div", { id: "layout", class: "rows", "aria-label": "the layout" }, drawn),
    h(
      "p",
      { class: "pot", id: "state" },
      round.status === "over" ? "The round is over." : pays ? h("span", {}, h("span", { class: "chip-stack", "aria-hidden": "true" }), `Pot: ${count(round.pot ?? 0, "chip")}`) : `Turn ${round.turn ?? "-"}`
    )
  ];
  if (!view) return { center };
  const playable = new Set(view.playable ?? []);
  const turnNo = view.turn ?? 0;
  const play = (card) => ctx.act(async () => {
    ok(
      await api.PUT("/v1/tables/{table_id}/rounds/{round_no}/turns/{turn_no}", {
        params: { path: { ...path(ctx), round_no: round.number, turn_no: turnNo } },
        body: { play: card, ...view.must_announce ? { last_card: true } : {} },
        headers: auth(ctx)
      })
    );
  });
  const onTurn = Boolean(view.on_turn);
  const chips = Number(options.pass_chips ?? 1);
  return {
    center,
    hand: hand(ctx, onTurn ? playable : /* @__PURE__ */ new Set(), (card) => {
      if (onTurn && playable.has(card)) void play(card);
    }),
    actions: [
      action(
        "Pass",
        pays && chips ? `Pass (pay ${count(chips, "chip")})` : "Pass",
        "s",
        () => ctx.act(async () => {
          ok(
            await api.PUT("/v1/tables/{table_id}/rounds/{round_no}/turns/{turn_no}", {
              params: { path: { ...path(ctx), round_no: round.number, turn_no: turnNo } },
              body: { pass: true },
              headers: auth(ctx)
            })
          );
        }),
        Boolean(onTurn && view.may_pass),
        Boolean(onTurn && view.may_pass && playable.size === 0)
      )
    ],
    prompt: onTurn ? playable.size ? `Play a highlighted card${view.must_announce ? " (it announces your last card)" : ""}.` : "No card fits: pass." : ""
  };
}
function mayI(ctx) {
  const table = ctx.table;
  if (table.game !== "may-i") return { center: [] };
  const round = table.round;
  const view = ctx.view?.game === "may-i" ? ctx.view : void 0;
  if (!round) return { center: [] };
  const offer = round.may_i;
  const melds = round.melds ?? [];
  const owners = [...new Set(melds.map((m) => m.owner))];
  const center = [
    h(
      "div",
      { class: "piles" },
      h("div", { class: "pile stock", title: "the stock" }, back("small", String(round.stock_size ?? 0)), h("span", {}, "stock")),
      h(
        "div",
        { class: "pile discard", id: "discard", title: "the discard pile" },
        round.discard_top ? face(round.discard_top, "small") : h("span", { class: "card empty small" }),
        h("span", {}, `discards (${round.discard_size ?? 0})`)
      ),
      h("p", { class: "contract", id: "state" }, `Contract: ${contract(round.contract_sets, round.contract_runs)}`)
    )
  ];
  if (offer) {
    const answers = Object.entries(offer.answers ?? {}).map(([s, a]) => `${nameOf(table, Number(s))} ${a === "allow" ? "allows" : "says no"}`);
    center.push(
      h(
        "p",
        { id: "may-i", class: "offer" },
        h("strong", {}, "May I? "),
        face(offer.card, "small"),
        " ",
        offer.asker === null ? "Nobody has asked yet." : `${nameOf(table, offer.asker)} asks for it.`,
        answers.length ? ` ${list(answers)}.` : "",
        " ",
        clock(offer.until_ms)
      )
    );
  }
  center.push(
    h(
      "div",
      { id: "melds", "aria-label": "melds" },
      owners.length === 0 ? h("p", { class: "hint" }, "No melds on the table yet.") : "",
      owners.map(
        (owner) => h(
          "div",
          { class: "meld-group" },
          h("span", { class: "owner" }, nameOf(table, owner)),
          melds.filter((m) => m.owner === owner).map((m) => h("span", { class: `meld ${m.kind}`, "data-meld": m.id, title: `meld ${m.id}: a ${m.kind}` }, h("span", { class: "meld-no" }, String(m.id)), m.cards.map((c) => face(c, "mini"))))
        )
      )
    )
  );
  if (!view) return { center };
  const may = new Set(view.may ?? []);
  const lay = view.lay_offs ?? {};
  const discardable = new Set(view.discardable ?? []);
  const marked = /* @__PURE__ */ new Set([...may.has("discard") ? discardable : [], ...may.has("lay_off") ? Object.keys(lay) : []]);
  const moveNo = view.move ?? 0;
  const move = (body) => ctx.act(async () => {
    ok(
      await api.PUT("/v1/tables/{table_id}/rounds/{round_no}/moves/{move_no}", {
        params: { path: { ...path(ctx), round_no: round.number, move_no: moveNo } },
        body,
        headers: auth(ctx)
      })
    );
  });
  const cards = pickedCards(ctx);
  const buttons = [];
  if (may.has("take_discard")) buttons.push(action("Take the discard", `Take ${round.discard_top ? label(round.discard_top) : "the discard"}`, "t", () => move({ take_discard: true }), true, true));
  if (may.has("decline")) buttons.push(action("Decline it", "Pass on it", "n", () => move({ decline: true })));
  if (may.has("draw")) buttons.push(action("Draw", "Draw from the stock", "d", () => move({ draw: true }), true, true));
  if (may.has("lay_down")) {
    if (view.contract) {
      buttons.push(action("Lay down", `Lay down ${view.contract.map((m) => m.map(label).join(" ")).join(" | ")}`, "l", () => move({ lay_down: view.contract ?? [] }), true, true));
    }
    buttons.push(
      action(
        "Picked cards make a meld",
        "Picked cards make a meld",
        "g",
        () => {
          ctx.melds.push(cards);
          ctx.picked.clear();
          ctx.draw();
        },
        cards.length > 0
      )
    );
    if (ctx.melds.length) buttons.push(action("Lay down melds", `Lay down ${count(ctx.melds.length, "meld")}`, "k", () => move({ lay_down: ctx.melds.splice(0) })));
  }
  if (may.has("lay_off") && cards.length === 1) {
    for (const meld of lay[cards[0]] ?? []) {
      buttons.push(action(`Lay off on meld ${meld}`, `Lay ${label(cards[0])} off on meld ${meld}`, String(meld).slice(-1), () => move({ lay_off: { card: cards[0], meld } })));
    }
  }
  if (may.has("discard")) {
    buttons.push(action("Discard", cards.length === 1 ? `Discard ${label(cards[0])}` : "Discard (pick a card)", "x", () => move({ discard: cards[0] }), cards.length === 1 && discardable.has(cards[0]), cards.length === 1));
  }
  if (may.has("done")) buttons.push(action("Done", "Done laying off", "e", () => move({ done: true }), true, true));
  if (offer && may.has("ask")) {
    buttons.push(
      action(
        "May I?",
        `May I? (${label(offer.card)})`,
        "m",
        () => ctx.act(async () => {
          ok(
            await api.POST("/v1/tables/{table_id}/rounds/{round_no}/may-i", {
              params: { path: { ...path(ctx), round_no: round.number } },
              body: { offer: offer.offer },
              headers: { ...auth(ctx), "Idempotency-Key": crypto.randomUUID() }
            })
          );
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
    buttons.push(action("Allow", "Allow", "a", () => answer(true), true, true), action("Deny", "Say no", "r", () => answer(false)));
  }
  const building = ctx.melds.length ? h("p", { id: "building" }, "Melds to lay down: ", ctx.melds.map((m) => m.map(label).join(" ")).join(" | ")) : "";
  return {
    center,
    hand: hand(ctx, marked, (card, i) => toggle(ctx, card, i, 24)),
    actions: [building, ...buttons],
    prompt: promptOf(may, view, offer !== null && offer !== void 0)
  };
}
function promptOf(may, view, offered) {
  if (may.has("answer")) return "Someone asks “May I?” for the discard: allow it, or say no and take it yourself.";
  if (may.has("take_discard")) return "Take the discard, or pass on it.";
  if (may.has("draw")) return "Draw from the stock.";
  if (may.has("done")) return "Lay off what you can, then say you are done.";
  if (may.has("discard")) return may.has("lay_down") ? "Lay down your contract if you can; then discard a card." : "Lay off or discard: pick a card.";
  if (offered && may.has("ask")) return "Want the discard? Ask “May I?” (you take a card from the stock with it).";
  return "";
}

// src/table.ts
var shown;
var say = () => void 0;
function sayWith(speaker) {
  say = speaker;
}
function leaveTable() {
  shown?.live?.close();
  shown = void 0;
}
async function tablePage(main2, id) {
  const state = { id, feed: [], picked: /* @__PURE__ */ new Set(), melds: [], fresh: [], connection: "connecting" };
  shown = state;
  const mine = held(id);
  const base = location.origin;
  const options = { backlog: 20 };
  let live;
  if (mine.token !== void 0 && mine.seat !== void 0) {
    try {
      live = await connectSeat(base, id, { seat: mine.seat, token: mine.token }, options);
      state.me = mine.seat;
      state.token = mine.token;
    } catch (error) {
      if (!(error instanceof Refused) || error.status !== 401) throw error;
      say("This browser's key to its seat no longer works (the host may have given the seat a new one): you are watching.", true);
      live = await connectTable(base, id, options);
    }
  } else {
    live = await connectTable(base, id, options);
  }
  if (shown !== state) {
    live.close();
    return;
  }
  state.live = live;
  state.table = live.table;
  if (live.view) takeView(state, live.view);
  live.on("view", (view) => {
    takeView(state, view);
    drawSoon(main2, state);
  });
  live.on("table", (table) => {
    state.table = table;
    drawSoon(main2, state);
  });
  live.on("event", (event) => {
    addFeed(state, describe(event, state.table));
    drawSoon(main2, state);
  });
  live.on("gap", () => {
    addFeed(state, "Some moves went by while this page was away.");
    drawSoon(main2, state);
  });
  live.on("status", ({ status: status2, ended }) => {
    state.connection = status2;
    if (ended && ended.reason !== "closed") {
      say(
        ended.reason === "table-deleted" ? "The table was closed." : ended.reason === "seat-closed" ? "Your seat was given a new key (or you left it): this page no longer plays it." : `The referee refused this seat: ${ended.problem?.detail ?? ended.problem?.code ?? ""}`,
        true
      );
    }
    drawSoon(main2, state);
  });
  draw(main2, state);
}
function addFeed(state, line) {
  state.feed.unshift(line);
  state.feed.length = Math.min(state.feed.length, 60);
}
function takeView(state, view) {
  const before = state.view;
  const scope = (v) => JSON.stringify(v, (key2, value) => ["connected", "last_event", "until_ms", "away"].includes(key2) ? void 0 : value);
  if (scope(view) !== scope(before)) state.picked.clear();
  if (view.game === "my-ship-sails") {
    state.fresh = view.round_status === "over" ? [] : [...view.received ?? []];
  } else if (view.game === "may-i") {
    const wasOnTurn = before !== void 0 && "on_turn" in before && before.on_turn === true;
    if (!before || before.round !== view.round) {
      state.fresh = [];
    } else {
      const added = without(view.hand, before.hand);
      if (added.length) state.fresh = added;
      else if (wasOnTurn && !view.on_turn) state.fresh = [];
      else state.fresh = state.fresh.filter((c) => view.hand.includes(c));
    }
  }
  state.view = view;
}
function without(hand2, less) {
  const left = [...less];
  return hand2.filter((card) => {
    const at = left.indexOf(card);
    if (at < 0) return true;
    left.splice(at, 1);
    return false;
  });
}
function drawSoon(main2, state) {
  if (state.drawing !== void 0) return;
  state.drawing = requestAnimationFrame(() => {
    state.drawing = void 0;
    if (shown === state) draw(main2, state);
  });
}
function draw(main2, state) {
  const table = state.table;
  if (!table) return;
  const act = async (what) => {
    try {
      await what();
      say("");
    } catch (error) {
      say(error instanceof Refused ? refusal(error) : String(error), true);
    }
    await state.live?.refresh().catch(() => void 0);
  };
  const part = gamePart({
    id: state.id,
    table,
    view: state.view,
    token: state.token,
    picked: state.picked,
    melds: state.melds,
    fresh: state.fresh,
    act,
    draw: () => draw(main2, state)
  });
  const round = table.round;
  const rounds = matchLength(table);
  const ownUntil = ownDeadline(table, state.view, state.me);
  const playing = round && round.status !== "over";
  render(
    main2,
    h(
      "div",
      { class: "table-page" },
      h(
        "section",
        {
          class: `table game-${table.game}`,
          id: "table",
          "aria-label": "the table",
          "data-last-event": table.last_event,
          "data-view-event": state.view?.last_event ?? ""
        },
        h(
          "header",
          { class: "table-head" },
          h("h2", {}, title(table.game, table.variant), round ? h("small", {}, ` · round ${round.number}${rounds ? ` of ${rounds}` : ""}`) : ""),
          h("span", { class: `connection ${state.connection}`, title: "the live connection to the table" }, state.connection === "open" ? "live" : state.connection),
          h("p", { class: "goal", id: "goal" }, goal(table), " ", h("a", { href: `/docs/rules/${table.game}`, target: "_blank", rel: "noopener" }, "Rules"))
        ),
        h("p", { id: "awaiting", class: "waiting-line" }, waitingFor(table, state.me), ownUntil ? [" ", clock(ownUntil)] : ""),
        h(
          "div",
          { class: `felt seats-${table.seats?.length ?? 4}` },
          seatRing(table, state.me, ownUntil),
          h("div", { class: "center", id: "center" }, playing || round ? part.center : "", dealHere(state, act))
        ),
        state.view && playing ? h(
          "div",
          { class: "mine", "aria-label": "your hand and moves" },
          part.prompt ? h("p", { class: "prompt", id: "prompt" }, part.prompt) : "",
          part.hand ?? "",
          h("div", { class: "actions" }, part.actions ?? [])
        ) : ""
      ),
      h(
        "aside",
        { class: "side", "aria-label": "about the table" },
        hostPanel(state),
        resultPanel(table),
        h(
          "section",
          { class: "panel scores" },
          h("h3", {}, table.match?.status && table.match.status !== "in-progress" ? "Final scores" : "Scores"),
          h(
            "ol",
            { id: "standings" },
            // Each seat numbered by its rank: tied seats share a place (1, 1, 3).
            byRank(table.seats).map((s) => h("li", { value: s.rank, class: (table.match?.winners ?? []).includes(s.seat) ? "winner" : "" }, h("span", { class: "name" }, s.name ?? "open"), ": ", score(table, s)))
          )
        ),
        h(
          "section",
          { class: "panel events" },
          h("h3", {}, "What happened"),
          h("ol", { id: "feed", reversed: true, "aria-live": "polite" }, state.feed.slice(0, 30).map((line) => h("li", {}, line)))
        )
      )
    )
  );
}
function refusal(error) {
  return error.problem.detail ?? error.problem.title ?? error.message;
}
function matchLength(table) {
  const match = table.options.match;
  if (match && typeof match === "object" && "deals" in match && typeof match.deals === "number") return match.deals;
  return void 0;
}
function ownDeadline(table, view, me) {
  if (view && "until_ms" in view && typeof view.until_ms === "number") return view.until_ms;
  if (me === void 0 || !(table.awaiting?.seats ?? []).includes(me)) return void 0;
  return table.seats?.[me]?.until_ms ?? table.awaiting?.until_ms ?? void 0;
}
function dealHere(state, act) {
  const table = state.table;
  const host = held(state.id).host;
  const open = table.open_seats ?? [];
  const ready = open.length === 0 && table.match?.status === "in-progress" && (!table.round || table.round.status === "over");
  if (!ready) {
    if (!table.round && open.length) return h("p", { class: "hint" }, `${count(open.length, "seat")} still open: send the join links.`);
    return "";
  }
  if (!host) return table.round ? "" : h("p", { class: "hint" }, "Waiting for the host to deal.");
  return h(
    "button",
    {
      id: "deal",
      class: "action main deal",
      "data-key": "deal",
      onclick: () => act(async () => {
        ok(
          await api.POST("/v1/tables/{table_id}/rounds", {
            params: { path: { table_id: state.id } },
            headers: { ...bearer(host), "Idempotency-Key": crypto.randomUUID() }
          })
        );
      })
    },
    table.round ? `Deal round ${table.round.number + 1}` : "Deal"
  );
}
function hostPanel(state) {
  const mine = held(state.id);
  const table = state.table;
  const links = (mine.codes ?? []).filter((c) => c.seat === null || (table.open_seats ?? []).includes(c.seat));
  if (!links.length) return "";
  return h(
    "section",
    { class: "panel host", "aria-label": "join links" },
    h("h3", {}, "Invite players"),
    h("p", {}, links.length === 1 ? "Send this link to a friend: it takes the open seat." : "Send each friend one link: each takes one seat."),
    h(
      "ul",
      { id: "links" },
      links.map((c) => {
        const url = `${location.origin}/play#/join/${state.id}/${c.code}`;
        return h(
          "li",
          {},
          c.seat === null ? "Any open seat" : `Seat ${c.seat + 1}`,
          h("input", { readonly: true, value: url, class: "link", "aria-label": `join link for seat ${c.seat}`, "data-seat": c.seat }),
          h("button", { type: "button", onclick: () => navigator.clipboard?.writeText(url), "data-key": `copy-${c.seat}` }, "Copy")
        );
      })
    )
  );
}
function resultPanel(table) {
  const result = table.last_result;
  if (!result) return "";
  const seats = table.seats ?? [];
  const name = (s) => nameOf(table, s);
  const winners = "winners" in result ? result.winners : "winner" in result && typeof result.winner === "number" ? [result.winner] : [];
  const out = "out" in result ? result.out : null;
  const lines = [
    h("h3", {}, `Round ${result.round}`),
    h(
      "p",
      { id: "result-winners", class: "verdict" },
      winners.length ? `Won by ${winners.map(name).join(", ")}` : typeof out === "number" ? `${name(out)} went out` : "No winner",
      "abandoned" in result && result.abandoned ? " (abandoned)" : ""
    )
  ];
  const columns = [
    ["chips", "chips", signed],
    ["points", "points", signed],
    ["cards_left", "cards left", String],
    ["penalties", "penalty", String]
  ];
  const shown2 = columns.filter(([key2]) => {
    const values = result[key2];
    return Array.isArray(values) && values.length === seats.length && (key2 !== "points" || table.game !== "my-ship-sails");
  });
  if (shown2.length) {
    lines.push(
      h(
        "table",
        { class: "result" },
        h("tr", {}, h("th", {}, ""), shown2.map(([, words]) => h("th", {}, words))),
        seats.map(
          (s, i) => h(
            "tr",
            {},
            h("td", {}, s.name ?? ""),
            shown2.map(([key2, , fmt]) => h("td", {}, fmt(Number(result[key2][i]))))
          )
        )
      )
    );
  }
  for (const hand2 of ("hands" in result ? result.hands : null) ?? []) {
    lines.push(h("p", { class: "shown" }, `${name(hand2.seat)} showed `, hand2.cards.map((c) => face(c, "mini"))));
  }
  const aside = "set_aside" in result ? result.set_aside : null;
  if (aside?.length) lines.push(h("p", { class: "shown" }, "Set aside: ", aside.map(label).join(" ")));
  if ("pot" in result && result.pot > 0 && typeof result.winner === "number") {
    lines.push(h("p", {}, `${name(result.winner)} took the pot: ${count(result.pot, "chip")}.`));
  }
  const winnersOfMatch = table.match?.winners ?? [];
  if (table.match?.status && table.match.status !== "in-progress" && winnersOfMatch.length) {
    lines.push(h("p", { class: "verdict match" }, `${list(winnersOfMatch.map(name))} won the match.`));
  }
  return h("section", { class: "panel result", id: "result", "aria-label": "the last round" }, lines);
}

// src/play.ts
var main = document.getElementById("main");
var status = document.getElementById("status");
function say2(text, error = false) {
  status.textContent = text;
  status.className = error ? "error" : "";
}
sayWith(say2);
async function attempt(what) {
  try {
    await what();
  } catch (error) {
    say2(error instanceof Refused ? error.problem.detail ?? error.message : String(error), true);
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
          h("strong", {}, title(t.game ?? "", t.variant ?? "")),
          ` · ${count(t.seats_open ?? 0, "open seat")}: `,
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
    presets.map((p) => h("option", { value: p.name }, `${title(p.game ?? "", p.name ?? "")}: ${p.description}`))
  );
  const seats = h("input", { id: "seats", type: "number", min: 2, max: 10, value: 4, "data-key": "seats" });
  const name = h("input", { id: "name", required: true, maxlength: 40, value: "", "data-key": "name", autocomplete: "nickname" });
  const listed = h("input", { id: "listed", type: "checkbox", "data-key": "listed" });
  const window2 = h("input", { id: "window", type: "number", min: 0, max: 6e4, step: 500, value: 5e3, "data-key": "window" });
  const windowRow = h("p", { id: "window-row" }, h("label", { for: "window" }, "May I? window (ms) "), window2);
  const clocked = h("input", { id: "clocked", type: "checkbox", "data-key": "clocked" });
  const turnSeconds = h("input", { id: "turn-seconds", type: "number", min: 1, max: 3600, value: 30, "data-key": "turn-seconds" });
  const botDelay = h("input", { id: "bot-delay", type: "number", min: 0, max: 6e4, step: 100, value: 600, "data-key": "bot-delay" });
  const seatList = h("ol", { id: "seat-kinds" });
  const kinds = [];
  const layoutSeats = () => {
    const count2 = Number(seats.value);
    while (kinds.length < count2 - 1) {
      const i = kinds.length + 1;
      kinds.push(
        h(
          "select",
          { id: `seat-${i}`, "data-key": `seat-${i}`, "aria-label": `Seat ${i}` },
          h("option", { value: "open" }, "a friend (an open seat)"),
          h("option", { value: "basic" }, "a bot that plays well"),
          h("option", { value: "random" }, "a bot that plays at random")
        )
      );
    }
    kinds.length = Math.max(0, count2 - 1);
    render(
      seatList,
      h("li", {}, "Seat 1: you"),
      kinds.map((k, i) => h("li", {}, h("label", { for: k.id }, `Seat ${i + 2}: `), k))
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
      say2(`${presetName(chosen.name ?? "")} is not played by four: pick another game or set the seats below.`, true);
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
      " (you and three bots, at once)"
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
  say2("");
  const parts = location.hash.replace(/^#\/?/, "").split("/");
  if (parts[0] === "table" && parts[1]) return tablePage(main, parts[1]);
  if (parts[0] === "join" && parts[1]) return joinPage(parts[1], parts[2]);
  return lobby();
}
window.addEventListener("hashchange", () => void attempt(route));
void attempt(route);
setInterval(tick, 250);
