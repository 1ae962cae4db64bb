import type { APIGatewayProxyEvent, APIGatewayProxyEventV2, LambdaFunctionURLEvent } from 'aws-lambda';

/** What a handler can be invoked with: REST API (payload 1.0), HTTP API (2.0) or a Function URL (2.0 shape). */
export type LambdaHttpEvent = APIGatewayProxyEvent | APIGatewayProxyEventV2 | LambdaFunctionURLEvent;

/**
 * The subset of a Lambda proxy result that all three integrations accept. `body` is always a
 * string (REST API requires one; empty for 204).
 */
export interface HttpResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/** The request as the handlers see it, whatever the event version. */
export interface HttpRequest {
  /** Upper-case, e.g. `POST`. */
  method: string;
  path: string;
  /** Names lower-cased; repeated headers comma-joined. */
  headers: Record<string, string>;
  /** The body bytes, base64-decoded when the event says so; undefined when there is no body. */
  rawBody: Uint8Array | undefined;
  sourceIp: string | undefined;
  /** API Gateway's request id (matches its access logs); undefined for hand-made events. */
  requestId: string | undefined;
  /** The parsed JSON body, set by the jsonBody middleware. */
  body?: unknown;
}
