/**
 * openapi.yaml as a checker: a small JSON Schema validator for the subset the document uses (it
 * fails on any other keyword, so the two cannot drift apart silently), and `contractErrors`,
 * everything wrong with one answer by the document (its status, headers, body, and for an error
 * the code, `error.code` or OAuth's flat `error`, which must be one the answer lists in `x-error-codes`).
 */
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';

/** A response as every host's test sees it: header names lower-case, body as text ('' for none). */
export interface HttpAnswer {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed YAML document, walked by the checker
export type Json = any;
export const spec: Json = parseYaml(await readFile(new URL('../../openapi.yaml', import.meta.url), 'utf8'));

// ---- a small JSON Schema checker for the subset openapi.yaml uses ----

const KNOWN_KEYWORDS = new Set([
  '$ref', 'type', 'required', 'properties', 'additionalProperties', 'items', 'enum', 'const',
  'minItems', 'minimum', 'minLength', 'maxLength', 'format', 'description', 'default',
  'maxItems', 'pattern', 'anyOf',
]);

/** Every keyword in `schema` (and the schemas inside it) the checker does not know, with where. */
export function unsupportedKeywords(schema: Json, at = '$'): string[] {
  if (schema === undefined || schema === null || typeof schema !== 'object' || schema.$ref) return [];
  const own = Object.keys(schema).filter((keyword) => !KNOWN_KEYWORDS.has(keyword)).map((keyword) => `${at}: ${keyword}`);
  const inner = [
    ...Object.entries<Json>(schema.properties ?? {}).map(([name, property]) => unsupportedKeywords(property, `${at}.${name}`)),
    unsupportedKeywords(schema.items, `${at}[]`),
    ...(schema.anyOf ?? []).map((option: Json, index: number) => unsupportedKeywords(option, `${at}|${index}`)),
    typeof schema.additionalProperties === 'object' ? unsupportedKeywords(schema.additionalProperties, `${at}.*`) : [],
  ];
  return [...own, ...inner.flat()];
}

export function resolveRef(ref: string): Json {
  if (!ref.startsWith('#/')) throw new Error(`only local $refs are supported: ${ref}`);
  const target = ref.slice(2).split('/').reduce((node: Json, key) => node?.[key], spec);
  if (target === undefined) throw new Error(`unresolved $ref ${ref}`);
  return target;
}

const deref = (node: Json): Json => (node?.$ref ? deref(resolveRef(node.$ref)) : node);

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (Number.isInteger(value)) return 'integer';
  return typeof value;
}

export function schemaErrors(schemaOrRef: Json, value: unknown, at = '$'): string[] {
  const schema = deref(schemaOrRef);
  const unknown = Object.keys(schema).filter((keyword) => !KNOWN_KEYWORDS.has(keyword));
  if (unknown.length > 0) return [`${at}: checker does not support ${unknown.join(', ')}`];
  const errors: string[] = [];
  if (schema.anyOf !== undefined && !schema.anyOf.some((option: Json) => schemaErrors(option, value, at).length === 0)) return [`${at}: matches no anyOf option`];
  if (schema.type !== undefined) {
    const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type];
    const actual = typeOf(value);
    if (!types.includes(actual) && !(actual === 'integer' && types.includes('number'))) {
      return [`${at}: expected ${types.join('|')}, got ${actual}`];
    }
  }
  if (schema.const !== undefined && value !== schema.const) errors.push(`${at}: expected ${JSON.stringify(schema.const)}`);
  if (schema.enum !== undefined && !schema.enum.includes(value)) errors.push(`${at}: ${JSON.stringify(value)} not in enum`);
  if (typeof value === 'number' && schema.minimum !== undefined && value < schema.minimum) errors.push(`${at}: below minimum`);
  if (typeof value === 'string' && schema.minLength !== undefined && value.length < schema.minLength) errors.push(`${at}: too short`);
  if (typeof value === 'string' && schema.maxLength !== undefined && value.length > schema.maxLength) errors.push(`${at}: too long`);
  if (typeof value === 'string' && schema.pattern !== undefined && !new RegExp(schema.pattern).test(value)) errors.push(`${at}: does not match ${schema.pattern}`);
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) errors.push(`${at}: fewer than ${schema.minItems} items`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems) errors.push(`${at}: more than ${schema.maxItems} items`);
    if (schema.items) value.forEach((item, index) => errors.push(...schemaErrors(schema.items, item, `${at}[${index}]`)));
  }
  if (typeOf(value) === 'object') {
    const object = value as Record<string, unknown>;
    for (const name of schema.required ?? []) if (!(name in object)) errors.push(`${at}: missing ${name}`);
    for (const [name, propertyValue] of Object.entries(object)) {
      const propertySchema = schema.properties?.[name];
      if (propertySchema) errors.push(...schemaErrors(propertySchema, propertyValue, `${at}.${name}`));
      else if (schema.additionalProperties === false) errors.push(`${at}: unexpected property ${name}`);
    }
  }
  return errors;
}

// ---- paths and answers ----

/** The keys of a path item that are operations (the others, `parameters` and such, are not). */
export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * The document's path (template) a request path is answered by: `/sessions/abc` is
 * `/sessions/{id}`, `/logout?scope=others` is `/logout`. A literal path wins over a template.
 */
export function specPathOf(requestPath: string): string | undefined {
  const path = requestPath.split('?')[0]!;
  const templates = Object.keys(spec.paths ?? {});
  if (templates.includes(path)) return path;
  return templates.find((template) => templatePattern(template).test(path));
}

/** `/sessions/{id}` as a RegExp: a parameter is one non-empty segment. */
export function templatePattern(template: string): RegExp {
  const source = template
    .split(/(\{[^/{}]+\})/)
    .map((part) => (/^\{[^/{}]+\}$/.test(part) ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`);
}

/** Everything wrong with `response` as an answer of `method path` (a request path, or the document's template), by the document. */
export function contractErrors(method: string, requestPath: string, response: HttpAnswer): string[] {
  const path = specPathOf(requestPath) ?? requestPath;
  const item = spec.paths?.[path] ?? {};
  const operations = HTTP_METHODS.filter((name) => item[name] !== undefined).map((name) => item[name]);
  // A 405 answers a method the path has no operation for: it is declared on the path's operations.
  const operation = item[method.toLowerCase()] ?? (response.statusCode === 405 ? operations[0] : undefined);
  if (!operation) return [`${method} ${path} is not declared`];
  const declared = operation.responses?.[String(response.statusCode)];
  if (!declared) return [`${method} ${path} does not declare status ${response.statusCode}`];
  const description = deref(declared);
  const errors: string[] = [];
  for (const [name, header] of Object.entries<Json>(description.headers ?? {})) {
    const value = response.headers[name.toLowerCase()];
    if (deref(header).required && value === undefined) errors.push(`missing required header ${name}`);
    if (value !== undefined && deref(header).schema) {
      const typed = deref(header).schema.type === 'integer' && /^\d+$/.test(value) ? Number(value) : value;
      errors.push(...schemaErrors(deref(header).schema, typed, `header ${name}`));
    }
  }
  const content = description.content?.['application/json'];
  if (response.body === '') {
    if (content) errors.push('declared a JSON body, got none');
  } else {
    if (!content) return [...errors, 'got a body, none declared'];
    if (!String(response.headers['content-type']).startsWith('application/json')) errors.push('content-type is not application/json');
    const body = JSON.parse(response.body) as Json;
    errors.push(...schemaErrors(content.schema, body));
    // An error answer lists the codes it may carry (the route's own words, api/operation-doc.ts).
    const codes: string[] | undefined = description['x-error-codes'];
    const code = errorCodeOf(body);
    if (codes !== undefined && !codes.includes(code as string)) errors.push(`error code ${code} is not among this answer's codes (${codes.join(', ')})`);
  }
  return errors;
}


/** An error body's code: the API's `error.code`, or RFC 6749 §5.2's flat `error` (POST /token). */
export function errorCodeOf(body: Json): string | undefined {
  return typeof body?.error === 'string' ? body.error : body?.error?.code;
}
