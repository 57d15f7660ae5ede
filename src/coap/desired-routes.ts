import { DesiredService } from '../desired/service';
import { desiredReply, desiredWriteReply } from '../desired/replies';
import { SHADOW_LIMITS } from '../shadows/limits';
import { CHANGED, CONTENT } from './codes';
import { jsonOf } from './device-routes';
import { CoapHandler, CoapRoute } from './routes';
import { coapEtagOf } from './shadow-conditions';

/**
 * `/shadow/desired` over CoAP (docs/coap.md "Desired state"): REST's routes, with `?alias=` and the If-Match /
 * If-None-Match options on the desired document's own rev, which the replies carry as ETag.
 */
export function coapDesiredRoutes(desired: DesiredService): CoapRoute[] {
  const read: CoapHandler = async ({ caller, query }) => {
    const view = await desired.read(caller, query.get('alias'));
    return { code: CONTENT, body: desiredReply(view), etag: coapEtagOf(view.state.rev) };
  };
  const write =
    (merged: boolean): CoapHandler =>
    async (call) => {
      const result = await desired.write(call.caller, call.query.get('alias'), jsonOf(call), merged, call.revCondition);
      return { code: CHANGED, body: desiredWriteReply(result), etag: coapEtagOf(result.state.rev) };
    };
  return [
    {
      path: ['shadow', 'desired'],
      open: false,
      maxPayloadBytes: SHADOW_LIMITS.maxWriteBodyBytes,
      methods: { GET: read, PUT: write(true), POST: write(false) },
    },
  ];
}
