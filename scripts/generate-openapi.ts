/**
 * `npm run generate:openapi [-- --check]`: writes openapi.yaml from the API itself (and
 * openapi-admin.yaml from the operator API's routes, OPERATOR_ROUTES, apart: its callers are
 * operators' tools, its routes never on the public API, and the public document refuses them): every path
 * and method of API_ROUTES (packages/server/src/wiring/api-routes.ts) with what each route says
 * of itself (its `doc`: summary, description, parameters, every answer with its error codes and
 * headers) and the answers the HTTP toolkit gives every route (405, 500; 413 and 415 with a
 * body), the schemas its body is checked with and its answers are shaped by (valibot, turned
 * into JSON Schema by @valibot/to-json-schema), and the error body of the error table (RFC 6749
 * §5.2's flat one, and its codes, for a route whose `errorBody` is `oauth`).
 * `--check` writes nothing and fails when the committed file differs; test/openapi-contract.test.ts
 * checks the same, so a route or schema changed without regenerating fails the tests.
 *
 * Generated rather than written beside the code: the schema a route validates with is the one
 * its clients read, and nobody keeps two copies of a field in step.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeGeneratedFiles } from './write-generated-files.js';
import { toJsonSchemaDefs, type JsonSchema } from '@valibot/to-json-schema';
import type { GenericSchema } from 'valibot';
import { Document } from 'yaml';
import type { AnswerDoc, HeaderDoc, NamedSchema, OperationDoc, ParameterDoc, PlainSchema } from '../packages/server/src/api/operation-doc.js';
import { authenticationCodes, PRAGMA_NO_CACHE, toolkitAnswers } from '../packages/server/src/api/answers.js';
import { ERROR_BODY, OAUTH_ERROR_BODY } from '../packages/server/src/api/error-body.js';
import { ERROR_TABLE, type ErrorAnswer, type ErrorBodyName } from '../packages/server/src/api/error-table.js';
import type { ErrorCode } from '../packages/server/src/accounts/errors.js';
import type { AnyRoute, Authentication } from '../packages/server/src/api/route.js';
import { API_DOCUMENT, OPERATOR_API_DOCUMENT } from '../packages/server/src/wiring/api-document.js';
import { OPERATOR_ROUTES } from '../packages/server/src/features/operators/operator-routes.js';
import { API_ROUTES } from '../packages/server/src/wiring/api-routes.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const OPENAPI_FILE = 'openapi.yaml';
/** The operator API's document, apart from the public one: its clients are operators' tools, not apps. */
export const ADMIN_OPENAPI_FILE = 'openapi-admin.yaml';

type Json = string | number | boolean | null | readonly Json[] | { readonly [key: string]: Json | undefined };

/** The document's shared parts, collected from the routes: each name once, for one object only. */
class Components<T> {
  readonly byName = new Map<string, T>();

  constructor(private readonly kind: string) {}

  add(name: string, value: T): string {
    const known = this.byName.get(name);
    if (known !== undefined && known !== value) throw new Error(`two different ${this.kind} are named ${name}`);
    this.byName.set(name, value);
    return name;
  }
}

/** What a document says of its API as a whole (wiring/api-document.ts), besides its operations. */
export interface DocumentInfo {
  title: string;
  summary: string;
  description: string;
  license: { name: string; identifier: string };
  servers: ReadonlyArray<{ url: string; description: string }>;
}

/**
 * How a document's operations are authenticated: the public API's Bearer tokens, or the operator
 * API's caller (an IAM principal's SigV4 signature on Lambda, an admin key elsewhere), which every
 * one of its operations requires.
 */
interface DocumentSecurity {
  schemes: Record<string, Json>;
  /** Every operation's `security`, whatever its route's doc says (the operator API). */
  everyOperation?: Json;
}

const PUBLIC_SECURITY: DocumentSecurity = { schemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } };

/** openapi.yaml as the routes and their schemas describe the API. The operator API is not in it: renderAdminOpenApi. */
export function renderOpenApi(routes: readonly AnyRoute<unknown>[] = API_ROUTES as readonly AnyRoute<unknown>[]): string {
  const operatorPaths = routes.filter((route) => isOperatorPath(route.path)).map((route) => `${route.method} ${route.path}`);
  if (operatorPaths.length > 0) throw new Error(`${OPENAPI_FILE} documents the public API: ${operatorPaths.join(', ')} belong in ${ADMIN_OPENAPI_FILE}`);
  return renderDocument(routes, API_DOCUMENT, PUBLIC_SECURITY);
}

/**
 * The operator API's callers: on Lambda a SigV4 signature API Gateway's AWS_IAM authorization
 * checks, elsewhere an admin key. Either, on every operation: the routes' own docs say nothing of it.
 */
const OPERATOR_SECURITY: DocumentSecurity = {
  schemes: {
    awsSigV4: {
      type: 'apiKey',
      name: 'Authorization',
      in: 'header',
      description:
        "AWS Lambda: a SigV4 signature (service execute-api) of an IAM principal allowed execute-api:Invoke on the route; API Gateway's AWS_IAM authorization checks it before the function runs.",
    },
    adminKey: { type: 'http', scheme: 'bearer', description: 'Other hosts: one of the keys PASSLANE_ADMIN_KEYS holds the hash of (`Authorization: Bearer <key>`).' },
  },
  everyOperation: [{ awsSigV4: [] }, { adminKey: [] }],
};

/** openapi-admin.yaml: the operator API (features/operators), apart from the public document. */
export function renderAdminOpenApi(routes: readonly AnyRoute<unknown>[] = OPERATOR_ROUTES as readonly AnyRoute<unknown>[]): string {
  const strays = routes.filter((route) => !isOperatorPath(route.path)).map((route) => `${route.method} ${route.path}`);
  if (strays.length > 0) throw new Error(`${ADMIN_OPENAPI_FILE} documents the operator API (/admin/...): ${strays.join(', ')} is not one of its routes`);
  return renderDocument(routes, OPERATOR_API_DOCUMENT, OPERATOR_SECURITY);
}

/** The operator API's paths, which the public document never lists. */
export const isOperatorPath = (path: string): boolean => path === '/admin' || path.startsWith('/admin/');

function renderDocument(routes: readonly AnyRoute<unknown>[], info: DocumentInfo, security: DocumentSecurity): string {
  const schemas = new Components<GenericSchema>('schemas');
  const headers = new Components<HeaderDoc>('headers');
  const answers = new Components<AnswerDoc>('answers');
  const schemaRef = (named: NamedSchema): Json => {
    schemas.add(named.name, named.schema);
    for (const part of named.parts ?? []) schemaRef(part);
    return { $ref: `#/components/schemas/${named.name}` };
  };
  const errorBody = schemaRef(ERROR_BODY);

  const renderHeader = (header: HeaderDoc): Json =>
    header.name !== undefined ? { $ref: `#/components/headers/${headers.add(header.name, header)}` } : plainHeader(header);
  const renderAnswer = (status: number, answer: AnswerDoc, at: string, shape: ErrorBodyName = 'api'): Json => {
    checkCodes(status, answer, at);
    const error = status >= 400;
    const body = answer.body !== undefined ? schemaRef(answer.body) : !error ? undefined : shape === 'oauth' ? schemaRef(OAUTH_ERROR_BODY) : errorBody;
    // The OAuth body carries the table's `oauth` code of each, and the toolkit adds Pragma to it.
    const codes = answer.codes === undefined || shape === 'api' ? answer.codes : oauthCodes(answer.codes, at);
    const answerHeaders = error && shape === 'oauth' ? { ...answer.headers, Pragma: PRAGMA_NO_CACHE } : answer.headers;
    return {
      description: answer.description,
      ...(answerHeaders !== undefined && { headers: mapValues(answerHeaders, renderHeader) }),
      ...(body !== undefined && { content: { 'application/json': { schema: body } } }),
      ...(codes !== undefined && { 'x-error-codes': codes }),
    };
  };
  const renderOperation = (route: AnyRoute<unknown>): Json => {
    const doc: OperationDoc = route.doc;
    const at = `${route.method} ${route.path}`;
    const body = route.body === undefined ? undefined : schemaRef(route.body);
    // A route that declares who may call it takes a Bearer token, and its answers list what the check answers.
    const bearer = route.authenticate !== undefined ? 'bearer' : doc.security;
    if (route.authenticate !== undefined) checkAuthenticationAnswers(route.authenticate, doc, at);
    const media = route.body?.form === true ? ['application/json', 'application/x-www-form-urlencoded'] : ['application/json'];
    return {
      operationId: doc.operationId,
      summary: doc.summary,
      ...(doc.description !== undefined && { description: doc.description }),
      ...(security.everyOperation !== undefined
        ? { security: security.everyOperation }
        : bearer !== undefined && { security: bearer === 'bearer' ? [{ bearerAuth: [] }] : [] }),
      ...(doc.parameters !== undefined && { parameters: doc.parameters.map(parameter) }),
      ...(body !== undefined && { requestBody: { required: true, content: Object.fromEntries(media.map((type) => [type, { schema: body }])) } }),
      responses: Object.fromEntries(
        Object.entries({ ...toolkitAnswers(route.body !== undefined), ...doc.answers })
          .sort(([a], [b]) => Number(a) - Number(b))
          .map(([status, answer]) => {
            // The shared answers carry the API's error body: a route answering OAuth's has its own.
            if (answer.name === undefined || route.errorBody === 'oauth') return [status, renderAnswer(Number(status), answer, at, route.errorBody)];
            answers.add(answer.name, answer);
            return [status, { $ref: `#/components/responses/${answer.name}` }];
          }),
      ),
    };
  };

  const paths: Record<string, Record<string, Json>> = {};
  for (const route of routes) {
    // hono's `/sessions/:id` is OpenAPI's `/sessions/{id}`.
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: renderOperation(route) };
  }
  // Shared answers render after the operations, which named them; their headers and schemas join the components.
  const sharedAnswers = Object.fromEntries(
    [...answers.byName].map(([name, answer]) => [name, renderAnswer(sharedStatus(answer, name), answer, `components.responses.${name}`)]),
  );
  const document = {
    openapi: '3.1.0',
    info: {
      title: info.title,
      version: (JSON.parse(readFileSync(join(root, 'packages/server/package.json'), 'utf8')) as { version: string }).version,
      summary: info.summary,
      description: info.description,
      license: info.license,
    },
    servers: info.servers,
    paths,
    components: {
      securitySchemes: security.schemes,
      headers: Object.fromEntries([...headers.byName].map(([name, header]) => [name, plainHeader(header)])),
      schemas: jsonSchemas(schemas.byName),
      responses: sharedAnswers,
    },
  };
  return new Document(document, { aliasDuplicateObjects: false }).toString({ lineWidth: 0 });
}

/** Each named schema as JSON Schema (2020-12, OpenAPI 3.1's), the others referred to by `$ref`. */
function jsonSchemas(byName: ReadonlyMap<string, GenericSchema>): Record<string, JsonSchema> {
  const converted = toJsonSchemaDefs(Object.fromEntries(byName), {
    target: 'draft-2020-12',
    typeMode: 'input',
    // Rules the use cases apply (a canonical email, the grant type) are checks here; metadata says what they enforce.
    ignoreActions: ['check', 'raw_check'],
    overrideRef: ({ referenceId }) => `#/components/schemas/${referenceId}`,
    // A string literal is a string: said, as `enum` says it, for readers that look at `type` first.
    overrideSchema: ({ valibotSchema, jsonSchema }) =>
      valibotSchema.type === 'literal' && typeof (valibotSchema as { literal?: unknown }).literal === 'string' ? { type: 'string', ...jsonSchema } : undefined,
  });
  return Object.fromEntries(Object.entries(converted).map(([name, schema]) => [name, withoutEmptyRequired(schema)]));
}

/** `required: []` says nothing: left out, as a hand-written schema would. */
function withoutEmptyRequired(schema: JsonSchema): JsonSchema {
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'required' && Array.isArray(value) && value.length === 0) continue;
    if (key === 'properties' && typeof value === 'object' && value !== null) {
      copy[key] = Object.fromEntries(Object.entries(value).map(([name, property]) => [name, withoutEmptyRequired(property as JsonSchema)]));
    } else if (key === 'items' && typeof value === 'object' && value !== null) {
      copy[key] = withoutEmptyRequired(value as JsonSchema);
    } else {
      copy[key] = value;
    }
  }
  return copy as JsonSchema;
}

/** An error answer lists its codes, and each is one the error table answers with this status. */
function checkCodes(status: number, answer: AnswerDoc, at: string): void {
  if (status < 400) {
    if (answer.codes !== undefined) throw new Error(`${at} ${status}: a success carries no error codes`);
    return;
  }
  if (answer.codes === undefined || answer.codes.length === 0) throw new Error(`${at} ${status}: an error answer lists its codes`);
  for (const code of answer.codes) {
    if (ERROR_TABLE[code].status !== status) throw new Error(`${at} ${status}: ${code} is answered ${ERROR_TABLE[code].status} (api/error-table.ts)`);
  }
}

/** A route that declares `authenticate` documents every code its check answers (api/answers.ts `authenticationCodes`). */
function checkAuthenticationAnswers(authentication: Authentication, doc: OperationDoc, at: string): void {
  for (const [status, codes] of Object.entries(authenticationCodes(authentication))) {
    const listed = doc.answers[Number(status)]?.codes ?? [];
    const missing = codes.filter((code) => !listed.includes(code));
    if (missing.length > 0) throw new Error(`${at} ${status}: its authenticate ('${authentication}') answers ${missing.join(', ')}, which its document leaves out`);
  }
}

/** RFC 6749 §5.2's codes of an answer of a route with the OAuth error body: each of its codes' `oauth`, once. */
function oauthCodes(codes: readonly ErrorCode[], at: string): string[] {
  return [
    ...new Set(
      codes.map((code) => {
        const { oauth }: ErrorAnswer = ERROR_TABLE[code];
        if (oauth === undefined) throw new Error(`${at}: ${code} has no OAuth code (api/error-table.ts), so a route answering OAuth's error body cannot list it`);
        return oauth;
      }),
    ),
  ];
}

/** A shared answer's status: its codes'. */
function sharedStatus(answer: AnswerDoc, name: string): number {
  const statuses = new Set((answer.codes ?? []).map((code) => ERROR_TABLE[code].status));
  const [status] = statuses;
  if (statuses.size !== 1 || status === undefined) throw new Error(`shared answer ${name} needs codes of one status`);
  return status;
}

function parameter(doc: ParameterDoc): Json {
  return { name: doc.name, in: doc.in, ...(doc.required !== undefined && { required: doc.required }), description: doc.description, schema: plainSchema(doc.schema) };
}

function plainHeader(header: HeaderDoc): Json {
  return {
    ...(header.required !== undefined && { required: header.required }),
    ...(header.description !== undefined && { description: header.description }),
    schema: plainSchema(header.schema),
  };
}

function plainSchema(schema: PlainSchema): Json {
  return { ...schema };
}

function mapValues<T>(record: Readonly<Record<string, T>>, map: (value: T) => Json): Record<string, Json> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value)]));
}

function main(argv: string[]): number {
  return writeGeneratedFiles(root, { [OPENAPI_FILE]: renderOpenApi(), [ADMIN_OPENAPI_FILE]: renderAdminOpenApi() }, {
    check: argv.includes('--check'),
    source: 'the routes and their schemas',
    command: 'npm run generate:openapi',
  });
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = main(process.argv.slice(2));
