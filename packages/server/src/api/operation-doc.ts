import type { GenericSchema } from 'valibot';
import type { ErrorCode } from '../accounts/errors.js';

/**
 * How a route describes itself in the API's document (openapi.yaml, which
 * scripts/generate-openapi.ts renders from the routes and their schemas): the words a client
 * reads, each answer with its body's schema, headers and error codes.
 */
export interface OperationDoc {
  operationId: string;
  summary: string;
  description?: string;
  /** `bearer`: the route takes an access token (`Authorization: Bearer`); `none`: it takes none. */
  security?: 'bearer' | 'none';
  parameters?: readonly ParameterDoc[];
  /**
   * Every status the route's own steps answer; those createApi gives every route (405, 500, and
   * 413, 415 to a route with a body: answers.ts `toolkitAnswers`) join them in the document.
   */
  answers: Readonly<Record<number, AnswerDoc>>;
}

/** A schema and its name among the document's schemas (components.schemas). */
export interface NamedSchema {
  name: string;
  schema: GenericSchema;
  /** The named schemas inside it (a list's items), each its own entry in the document. */
  parts?: readonly NamedSchema[];
}

/** A query, path or header parameter. */
export interface ParameterDoc {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  description: string;
  schema: PlainSchema;
}

/**
 * One answer. An error answer (a status of 400 or more) carries the API's error body and lists
 * the error codes it may hold; `name` makes it one the document shares (components.responses).
 */
export interface AnswerDoc {
  name?: string;
  description: string;
  /** A success's JSON body; none for 204 and for the answers that only carry headers. */
  body?: NamedSchema;
  headers?: Readonly<Record<string, HeaderDoc>>;
  /** The error codes this answer may carry (error answers only). */
  codes?: readonly ErrorCode[];
}

/** A response header; `name` makes it one the document shares (components.headers). */
export interface HeaderDoc {
  name?: string;
  description?: string;
  required?: boolean;
  schema: PlainSchema;
}

/** The few JSON Schema words a parameter or header needs. */
export interface PlainSchema {
  type: 'string' | 'integer';
  const?: string;
  enum?: readonly string[];
  default?: string;
  minimum?: number;
}
