// Reading the fields of a Claude Code record's JSON, where any field may be
// missing or of another type than expected.

/** A JSON object, by its fields. */
export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A field's text: undefined when the field is no string, or an empty one.
 * An empty id, name, path, command or prompt names nothing, so it reads as
 * absent; a field whose empty text means something (the new text of an edit
 * that deletes) says so where it is read, with `?? ''`.
 */
export function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
