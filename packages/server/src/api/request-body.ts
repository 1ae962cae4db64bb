import * as v from 'valibot';
import { InvalidRequestError } from '../accounts/errors.js';

/**
 * A route's request body schema (valibot): an object whose fields are checked in their order, the
 * first refusal answered. A field's message is the answer's (`<field> must be a string`), with
 * the field's name as its `field`: the same errors the use cases raised while they read bodies.
 */
export type BodySchema = v.ObjectSchema<v.ObjectEntries, v.ErrorMessage<v.ObjectIssue> | undefined>;

/** What a body schema hands the route: the checked fields. */
export type BodyOf<B extends BodySchema> = v.InferOutput<B>;

/** Every JSON body of this API is an object: anything else (an array, null, a string) is refused as a whole. */
export const NOT_AN_OBJECT = 'request body must be a JSON object';

/**
 * The body as its schema types it, or InvalidRequestError (`invalid_request`) for the first field
 * the schema refuses. A missing field is answered as its schema answers no value (its own
 * message, not the object's). A rule that throws another server error (`checkedBy`,
 * accounts/request-fields.ts) is answered as that error.
 */
export function parseBody<B extends BodySchema>(schema: B, body: unknown): BodyOf<B> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new InvalidRequestError(NOT_AN_OBJECT);
  const result = v.safeParse(schema, body, { abortEarly: true });
  if (result.success) return result.output;
  const [issue] = result.issues;
  const key = issue.path?.[0]?.key;
  if (typeof key !== 'string') throw new InvalidRequestError(issue.message);
  const entry = schema.entries[key];
  if (entry !== undefined && !Object.hasOwn(body, key)) {
    const missing = v.safeParse(entry, undefined, { abortEarly: true });
    if (!missing.success) throw new InvalidRequestError(missing.issues[0].message, key);
  }
  throw new InvalidRequestError(issue.message, key);
}
