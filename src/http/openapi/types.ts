/**
 * The part of OpenAPI 3.1 (spec.openapis.org/oas/v3.1.0) this document uses. Schemas are JSON Schema 2020-12
 * (OAS 3.1 §4.8.24), kept as plain objects so that ajv and the OpenAPI schema validator read them as they are.
 */
export type Schema = { readonly [keyword: string]: unknown };

export interface Example {
  readonly summary?: string;
  readonly value: unknown;
}

export interface MediaType {
  readonly schema?: Schema;
  readonly example?: unknown;
  readonly examples?: Readonly<Record<string, Example>>;
}

export interface Parameter {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header';
  readonly required?: boolean;
  readonly description?: string;
  readonly schema: Schema;
  readonly example?: unknown;
}

export interface Response {
  readonly description: string;
  readonly headers?: Readonly<Record<string, { readonly description?: string; readonly schema: Schema }>>;
  readonly content?: Readonly<Record<string, MediaType>>;
}

export interface RequestBody {
  readonly description?: string;
  readonly required?: boolean;
  readonly content: Readonly<Record<string, MediaType>>;
}

/** Security requirement: scheme name -> scopes (always empty here). */
export type SecurityRequirement = Readonly<Record<string, readonly string[]>>;

export interface Operation {
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly tags: readonly string[];
  readonly security?: readonly SecurityRequirement[];
  readonly parameters?: readonly Parameter[];
  readonly requestBody?: RequestBody;
  readonly responses: Readonly<Record<string, Response>>;
}

export type HttpMethod = 'get' | 'put' | 'post' | 'patch' | 'delete';

export type PathItem = Partial<Record<HttpMethod, Operation>>;
export type Paths = Readonly<Record<string, PathItem>>;

export const schemaRef = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
