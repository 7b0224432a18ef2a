/** A JSON API answer: the status and the parsed body (`{}` when the body is empty). */
export interface JsonAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** Calls `path` with `method`, an optional JSON body, and `headers` unless others are given. */
export type JsonApi = (
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<JsonAnswer>;

/** The tests' one way to call a JSON route of a service at `baseUrl` with default `headers`. */
export function jsonApi(baseUrl: string, defaultHeaders: Record<string, string>): JsonApi {
  return async (method, path, body, headers = defaultHeaders) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        ...headers,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    };
  };
}
