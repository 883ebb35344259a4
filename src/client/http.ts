/** The request plumbing of the typed client: one JSON request, errors as ApiError. */

export interface ClientOptions {
  /**
   * Origin (and optional path prefix) of the toolgate API, e.g. "https://tools.example.com".
   * Default: same origin (browsers).
   */
  baseUrl?: string;
  /**
   * The API key, or a function reading it per request (e.g. from sessionStorage). Sent as a Bearer
   * header, never in a URL.
   */
  key?: string | (() => string | null | undefined);
  /** Default: globalThis.fetch. */
  fetch?: typeof fetch;
  /** Extra headers on every request. */
  headers?: Readonly<Record<string, string>>;
}

/** An HTTP failure of the API (4xx/5xx with `{ error: { code, message } }`), or a network failure (status 0). */
export class ApiError extends Error {
  override name = "ApiError";
  readonly apiError = true;
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId?: string,
    /** From Retry-After, when the server sent one (429, 503). */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** Structural guard: works across bundles and realms, unlike instanceof. */
export function isApiError(value: unknown): value is ApiError {
  return typeof value === "object" && value !== null && (value as { apiError?: unknown }).apiError === true;
}

export type Query = Readonly<Record<string, string | number | boolean | undefined>>;

export interface RequestInit {
  method?: "GET" | "POST" | "DELETE";
  body?: unknown;
  query?: Query;
  signal?: AbortSignal;
  headers?: Readonly<Record<string, string>>;
}

export interface Transport {
  /** A JSON request; resolves with the parsed body of a 2xx, rejects with ApiError otherwise. */
  json<T>(path: string, init?: RequestInit): Promise<T>;
  /** The raw response of a 2xx (for streams); rejects with ApiError otherwise. */
  raw(path: string, init?: RequestInit): Promise<Response>;
  /** The absolute URL of a path (for EventSource). */
  url(path: string, query?: Query): string;
}

function retryAfter(response: Response): number | undefined {
  const value = response.headers.get("Retry-After");
  if (value === null) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined;
}

async function failure(response: Response): Promise<ApiError> {
  const requestId = response.headers.get("X-Request-Id") ?? undefined;
  const text = await response.text().catch(() => "");
  let code = `http_${response.status}`;
  let message = text.slice(0, 500) || response.statusText || `HTTP ${response.status}`;
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    if (typeof body.error?.code === "string") code = body.error.code;
    if (typeof body.error?.message === "string") message = body.error.message;
  } catch {
    // not JSON: keep the text
  }
  return new ApiError(response.status, code, message, requestId, retryAfter(response));
}

export function createTransport(options: ClientOptions): Transport {
  const base = (options.baseUrl ?? "").replace(/\/+$/, "");
  const doFetch =
    options.fetch ?? ((input: RequestInfo | URL, init?: globalThis.RequestInit) => globalThis.fetch(input, init));
  const keyOf = typeof options.key === "function" ? options.key : () => options.key as string | undefined;

  const url = (path: string, query?: Query): string => {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) params.set(name, String(value));
    const search = params.size > 0 ? `?${params}` : "";
    return `${base}${path}${search}`;
  };

  const raw = async (path: string, init: RequestInit = {}): Promise<Response> => {
    const headers: Record<string, string> = { Accept: "application/json", ...options.headers, ...init.headers };
    const key = keyOf();
    if (key) headers.Authorization = `Bearer ${key}`;
    if (init.body !== undefined) headers["Content-Type"] = "application/json";
    let response: Response;
    try {
      response = await doFetch(url(path, init.query), {
        method: init.method ?? (init.body === undefined ? "GET" : "POST"),
        headers,
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
        ...(init.signal ? { signal: init.signal } : {}),
      });
    } catch (error) {
      if (init.signal?.aborted) throw error;
      throw new ApiError(
        0,
        "network_error",
        `Could not reach the API: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (!response.ok) throw await failure(response);
    return response;
  };

  return {
    url,
    raw,
    async json<T>(path: string, init?: RequestInit): Promise<T> {
      const response = await raw(path, init);
      const text = await response.text();
      try {
        return JSON.parse(text) as T;
      } catch {
        throw new ApiError(response.status, "bad_response", `Expected JSON from ${path}, got: ${text.slice(0, 200)}`);
      }
    },
  };
}
