import { MediaType, Response, schemaRef } from './types';

/** A JSON body of a named schema, with its example. */
export const jsonBody = (schemaName: string, example?: unknown): Record<string, MediaType> => ({
  'application/json': { schema: schemaRef(schemaName), ...(example === undefined ? {} : { example }) },
});

/** The one success response of an operation. */
export const success = (status: 200 | 201, description: string, schemaName: string, example?: unknown): Record<string, Response> => ({
  [status]: { description, content: jsonBody(schemaName, example) },
});
