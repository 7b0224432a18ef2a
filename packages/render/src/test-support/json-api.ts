/**
 * A JSON API answer: the status, the parsed body (`{}` when the body is empty) and, for an error
 * from the catalogue, its code (the Havn-Error-Code header, docs/errors.md).
 */
export interface JsonAnswer {
  status: number;
  code?: string;
  body: Record<string, unknown>;
}

/** The answer `response` read whole as a JsonAnswer. */
export async function jsonAnswer(response: Response): Promise<JsonAnswer> {
  const text = await response.text();
  const code = response.headers.get('havn-error-code');
  return {
    status: response.status,
    ...(code === null ? {} : { code }),
    body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
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
    return jsonAnswer(response);
  };
}
