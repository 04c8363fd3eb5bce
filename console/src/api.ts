/**
 * The console's one way to reach Mailroom: the public API on the same origin, with the API key as a Bearer
 * header. The key lives in this tab's sessionStorage (gone when the tab closes) and is never put in a cookie,
 * a URL or a log; requests omit credentials so no cookie could ride along even if one existed.
 */
const STORAGE_KEY = "mailroom.apiKey";

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export interface KeyInfo {
  keyId: string;
  account: string;
  name: string | null;
  scopes: string[];
  expiresAt: string | null;
}

export function storedKey(): string | null {
  return sessionStorage.getItem(STORAGE_KEY);
}

export function storeKey(key: string | null): void {
  if (key === null) sessionStorage.removeItem(STORAGE_KEY);
  else sessionStorage.setItem(STORAGE_KEY, key);
}

async function call(key: string, method: string, path: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(path, {
    method,
    headers,
    credentials: "omit",
    cache: "no-store",
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  if (!response.ok) {
    const error = (await response.json().catch(() => null)) as { error?: string; message?: string } | null;
    throw new ApiError(
      response.status,
      error?.error ?? "http_error",
      error?.message ?? `${method} ${path} answered ${response.status}`,
    );
  }
  return response;
}

export interface Api {
  get<T>(path: string): Promise<T>;
  post<T>(path: string, body?: unknown): Promise<T>;
  patch<T>(path: string, body: unknown): Promise<T>;
  delete(path: string): Promise<void>;
  /** The answer as bytes, for raw messages and attachments. */
  blob(path: string): Promise<Blob>;
}

export function createApi(key: string): Api {
  const json = async <T>(response: Response) => (response.status === 204 ? undefined : response.json()) as T;
  return {
    get: async (path) => json(await call(key, "GET", path)),
    post: async (path, body) => json(await call(key, "POST", path, body ?? {})),
    patch: async (path, body) => json(await call(key, "PATCH", path, body)),
    delete: async (path) => {
      await call(key, "DELETE", path);
    },
    blob: async (path) => (await call(key, "GET", path)).blob(),
  };
}

/** A query string from the values that are set. */
export function query(values: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) if (value) params.set(name, value);
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** A path segment, encoded (ids, domain names and addresses travel in paths). */
export const seg = (value: string) => encodeURIComponent(value);
