import { decodeOrThrow } from '../core/decode-errors';
import { Device } from '../devices/device';
import { DeviceStore } from '../devices/port';
import { AppError } from '../core/errors';
import { JsonObject } from '../core/json';
import { applySchema, compileSchema, CompiledSchema, SchemaOutcome } from './apply-schema';
import { ShadowSchema } from './codecs';
import { SchemaOwner, SchemaStore } from './port';

export interface SchemaDeps {
  schemas: SchemaStore;
  devices: DeviceStore;
}

const describeOwner = (owner: SchemaOwner) =>
  'deviceid' in owner ? `device ${owner.deviceid}` : `group ${owner.projectid}/${owner.groupid}`;

/** Schema use cases: the admin's (device schemas and group defaults) and the one the shadow writes ask for. */
export function createSchemaService({ schemas, devices }: SchemaDeps) {
  async function mustHaveDevice(owner: SchemaOwner): Promise<void> {
    if ('deviceid' in owner && !(await devices.getDevice(owner.deviceid))) {
      throw new AppError('DEVICE_NOT_FOUND', `no device with id ${owner.deviceid}`);
    }
  }

  return {
    async getSchema(owner: SchemaOwner): Promise<ShadowSchema> {
      await mustHaveDevice(owner);
      const schema = await schemas.getSchema(owner);
      if (!schema) throw new AppError('SCHEMA_NOT_FOUND', `${describeOwner(owner)} has no schema`);
      return schema;
    },

    /** Replaces the schema; it applies from the next write on. Expressions are checked here, not at write time. */
    async putSchema(owner: SchemaOwner, body: unknown): Promise<ShadowSchema> {
      const schema = decodeOrThrow(ShadowSchema, body);
      await mustHaveDevice(owner);
      await schemas.putSchema(owner, schema);
      return schema;
    },

    async deleteSchema(owner: SchemaOwner): Promise<void> {
      await mustHaveDevice(owner);
      if (!(await schemas.deleteSchema(owner))) throw new AppError('SCHEMA_NOT_FOUND', `${describeOwner(owner)} has no schema`);
    },

    /** The schema a device's writes follow: its own, else its group's default, else none. */
    async schemaFor(device: Device): Promise<CompiledSchema | undefined> {
      const own = await schemas.getSchema({ deviceid: device.deviceid });
      const schema = own ?? (await schemas.getSchema({ projectid: device.projectid, groupid: device.groupid }));
      return schema && compileSchema(schema);
    },
  };
}

export type SchemaService = ReturnType<typeof createSchemaService>;

/** Applies a schema, or passes the write through unchanged when there is none. */
export function applyOptionalSchema(schema: CompiledSchema | undefined, incoming: JsonObject, previous: JsonObject): SchemaOutcome {
  return schema ? applySchema(schema, incoming, previous) : { data: incoming, warnings: [], expressionRuns: 0 };
}
