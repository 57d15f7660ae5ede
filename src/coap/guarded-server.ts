import { randomUUID } from 'node:crypto';
import { Socket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { parameters, Server, type CoapPacket, type IncomingMessage, type OutgoingMessage } from 'coap';
import { generate } from 'coap-packet';
import { AppError, toErrorBody } from '../core/errors';
import { requestTarget } from './routes';
import { CoapUploadLimits, DEFAULT_COAP_UPLOAD_LIMITS, UnfinishedUploads, UploadRefusal } from './unfinished-uploads';

/** Content-Format application/json (RFC 7252 §12.3). */
const JSON_FORMAT = Buffer.of(50);

export interface GuardedServerHooks {
  /** The largest payload the path's route reads, in bytes. */
  uploadLimit(segments: readonly string[]): number;
  /** A request node-coap failed to process (a broken block-wise transfer); answered with 4.00. */
  onBrokenRequest(reason: string, rsinfo: AddressInfo, requestId: string): void;
  /** Caps on unfinished uploads (COAP_UPLOAD_*); the defaults when absent. */
  uploads?: CoapUploadLimits;
  /**
   * Checks the credentials of an upload's first block (issue 20 §6): resolves when the caller may hold an upload
   * slot, rejects with the refusal (an AppError, answered with its CoAP code) otherwise.
   */
  admitUpload(packet: CoapPacket, rsinfo: AddressInfo): Promise<void>;
  /** The CoAP code of a refusal's error, as the server answers it (codes.ts). */
  refusalOf(err: unknown): { code: string; error: AppError; maxAgeSeconds?: number };
}


/** node-coap sends a reply of this many bytes or more block-wise (Block2), unless the request asked for smaller blocks. */
const SINGLE_REPLY_BYTES = 1024;

/** A Block1 or Block2 option (RFC 7959 §2.2): the block's number, size in bytes, and whether more follow. */
function blockOf(packet: CoapPacket, name: 'Block1' | 'Block2'): { num: number; size: number; more: boolean } | undefined {
  const option = packet.options?.find((o) => o.name === name);
  if (!option || !Buffer.isBuffer(option.value) || option.value.length > 3) return undefined;
  const value = option.value.length === 0 ? 0 : option.value.readUIntBE(0, option.value.length);
  return { num: value >> 4, size: 2 ** ((value & 0x7) + 4), more: (value & 0x8) !== 0 };
}

/** Seconds a client refused for its uploads is told to wait (Max-Age of a 4.29, RFC 8516 §3). */
const UPLOAD_RETRY_SECONDS = 5;

/**
 * Sets the reply's ETag and keeps it there: on a reply that goes block-wise, node-coap replaces the ETag with a
 * 2-byte digest of the bytes (OutgoingMessage.end), which a client would send back in If-Match and which may even
 * read as some other rev. A shadow's ETag is its rev on every block (docs/coap.md "Conditional writes").
 */
export function setKeptEtag(res: OutgoingMessage, etag: Buffer): void {
  res.setOption('ETag', etag);
  const setOption = res.setOption.bind(res);
  res.setOption = (name, values) => (name === 'ETag' ? res : setOption(name, values));
}

function uploadRefusalError(refusal: UploadRefusal): AppError {
  const why = {
    uploads: `this client has ${refusal.limit} unfinished block-wise uploads already (COAP_UPLOADS_PER_CLIENT)`,
    'client-bytes': `the unfinished block-wise uploads of this client would hold more than ${refusal.limit} bytes (COAP_UPLOAD_BYTES_PER_CLIENT)`,
    'total-bytes': `unfinished block-wise uploads would hold more than ${refusal.limit} bytes in all (COAP_UPLOAD_BYTES_TOTAL)`,
  }[refusal.reason];
  return new AppError('TOO_MANY_UPLOADS', `${why}; finish or abandon one, then retry`);
}

const clientOf = (rsinfo: AddressInfo) => `${rsinfo.address}:${rsinfo.port}`;
/** node-coap's key of an exchange's block-wise state (Server._toCacheKey, with the clientIdentifier given below). */
const exchangeKey = (packet: CoapPacket, rsinfo: AddressInfo) =>
  `${packet.token?.toString('hex') ?? ''}/${clientOf(rsinfo)}`;

export interface KeptReply {
  code: string;
  payload: Buffer;
}

/**
 * node-coap's server with four of its behaviours corrected at the adapter:
 *
 * - Block1 (RFC 7959): node-coap keeps every block of an upload until the last one, and allocates the whole body from
 *   the last block's number, so one datagram claiming block 1048575 would make it allocate a gigabyte. Here a block
 *   that reaches past the route's limit ends the transfer: the request goes on with no payload and is answered
 *   4.13 with Size1 = the limit (RFC 7959 §2.9.3).
 * - Block2: node-coap sends the later blocks of a long reply from its own cache, always as 2.05 and without the
 *   reply's options, since it saves them before an asynchronous handler has answered. A PUT's 2.04 must stay 2.04
 *   (RFC 7959 §2.4), so long replies are kept here and their later blocks are sent by the handler, from this copy.
 * - Observe (RFC 7641): the API has nothing to observe, yet node-coap would register a GET with Observe, send its
 *   reply as a notification that always says 2.05, and drop other requests carrying the option unanswered. The
 *   option is removed, so the reply is a plain one, which tells the client it is not registered (RFC 7641 §4.1).
 * - Errors node-coap raises itself: it answers datagrams it cannot parse, and sends every such answer to the
 *   loopback address instead of the sender. Garbage is ignored here (RFC 7252 §4.2 and §4.3 allow it, and it is
 *   never worth a reply); other failures are answered to the sender as 4.00 with the usual JSON error body.
 * - Unfinished uploads (issue 10 §3): node-coap keeps the blocks of any number of them, from anyone, for 247 s
 *   (EXCHANGE_LIFETIME), before any credential is read. Here the first block of an upload is admitted only with
 *   valid credentials (issue 20 §6: a stranger cannot hold the slots of a device behind the same address); uploads
 *   are counted per client (UnfinishedUploads): a block over the client's or the server's caps is answered 4.29
 *   TOO_MANY_UPLOADS, and an upload with no block for MAX_TRANSMIT_WAIT (93 s: past every retransmission of its
 *   last block) is dropped.
 */
export class GuardedCoapServer extends Server {
  /** Requests whose upload was cut short, with the limit they passed. */
  private readonly tooLarge = new WeakMap<object, number>();
  /** Long replies by exchange, for their later blocks; each kept as long as node-coap keeps its own copy. */
  private readonly kept = new Map<string, KeptReply>();
  private readonly uploads: UnfinishedUploads;
  /** Uploads whose first block's credentials are being checked: their retransmissions wait for the answer. */
  private readonly checking = new Set<string>();
  private closed = false;

  constructor(private readonly hooks: GuardedServerHooks) {
    super({ clientIdentifier: (req) => clientOf(req.rsinfo) });
    this.uploads = new UnfinishedUploads(hooks.uploads ?? DEFAULT_COAP_UPLOAD_LIMITS, parameters.maxTransmitWait * 1000, (key) =>
      this._block1Cache.remove(key));
  }

  /** Unfinished uploads and the bytes they hold (for tests and metrics). */
  uploadStats(): { readonly uploads: number; readonly bytes: number } {
    return this.uploads.stats();
  }

  /** Keeps a reply that goes block-wise, so that later blocks are sent with its code and options. */
  keepReply(req: IncomingMessage, reply: KeptReply): void {
    const packet = req._packet;
    if (!packet.token?.length || (reply.payload.length < SINGLE_REPLY_BYTES && !blockOf(packet, 'Block2'))) return;
    const key = exchangeKey(packet, req.rsinfo);
    this.kept.set(key, reply);
    setTimeout(() => this.kept.get(key) === reply && this.kept.delete(key), parameters.exchangeLifetime * 1000).unref();
  }

  /** The kept reply a request asks a later block of, if any. */
  keptReplyFor(req: IncomingMessage): KeptReply | undefined {
    const block2 = blockOf(req._packet, 'Block2');
    return block2 && block2.num > 0 ? this.kept.get(exchangeKey(req._packet, req.rsinfo)) : undefined;
  }

  /** The limit a request's upload went past, if it did. */
  exceededLimit(req: IncomingMessage): number | undefined {
    return this.tooLarge.get(req._packet);
  }

  override _handle(packet: CoapPacket, rsinfo: AddressInfo): void {
    packet.options = packet.options?.filter((o) => o.name !== 'Observe');
    const block1 = blockOf(packet, 'Block1');
    if (block1 !== undefined && packet.code?.startsWith('0.')) {
      const key = exchangeKey(packet, rsinfo);
      const offset = block1.num * block1.size;
      const limit = this.hooks.uploadLimit(requestTarget(packet.options ?? []).segments);
      if (offset + (packet.payload?.length ?? 0) > limit) {
        this.tooLarge.set(packet, limit);
        packet.options = packet.options?.filter((o) => o.name !== 'Block1');
        packet.payload = Buffer.alloc(0);
        // The blocks node-coap kept of it are of no use any more.
        this.uploads.finish(key);
        this._block1Cache.remove(key);
      } else if (!block1.more) {
        // The last block: node-coap puts the body together and forgets the blocks.
        this.uploads.finish(key);
      } else if (packet.token?.length && !this.uploads.has(key)) {
        // A new upload takes a slot only once its credentials are checked, so a stranger cannot hold the slots of
        // an address (issue 20 §6). node-coap keeps blocks only of uploads with a token (its cache key).
        this.startUpload(packet, rsinfo, key, offset);
        return;
      } else if (packet.token?.length && !this.takeBlock(packet, rsinfo, key, offset)) {
        return;
      }
    }
    if ((blockOf(packet, 'Block2')?.num ?? 0) > 0 && this.kept.has(exchangeKey(packet, rsinfo))) {
      // A later block of a kept reply: taken out of node-coap's cache so that the request reaches the handler. Its
      // body is complete already; node-coap's client repeats the last Block1 option, which would start a new upload.
      this._block2Cache.remove(exchangeKey(packet, rsinfo));
      packet.options = packet.options?.filter((o) => o.name !== 'Block1');
      packet.payload = Buffer.alloc(0);
    }
    super._handle(packet, rsinfo);
  }

  /** Takes a block of an admitted upload into its client's share; false (and answered 4.29) when over a cap. */
  private takeBlock(packet: CoapPacket, rsinfo: AddressInfo, key: string, offset: number): boolean {
    const refusal = this.uploads.admit(key, rsinfo.address, offset, packet.payload?.length ?? 0);
    if (refusal === undefined) return true;
    this.replyWithError(packet, rsinfo, '4.29', uploadRefusalError(refusal), UPLOAD_RETRY_SECONDS);
    return false;
  }

  /**
   * The first block of an upload this server does not hold yet: its credentials are checked (each block carries the
   * request's Uri-Query, RFC 7959 §2.5), then it takes a slot and goes to node-coap; a refusal is answered here and
   * holds nothing. A retransmission that comes during the check is dropped: the client sends it again, and then
   * node-coap answers it from its cache of replies.
   */
  private startUpload(packet: CoapPacket, rsinfo: AddressInfo, key: string, offset: number): void {
    if (this.checking.has(key)) return;
    this.checking.add(key);
    this.hooks.admitUpload(packet, rsinfo).then(
      () => {
        this.checking.delete(key);
        if (!this.closed && this.takeBlock(packet, rsinfo, key, offset)) super._handle(packet, rsinfo);
      },
      (err: unknown) => {
        this.checking.delete(key);
        const { code, error, maxAgeSeconds } = this.hooks.refusalOf(err);
        if (!this.closed) this.replyWithError(packet, rsinfo, code, error, maxAgeSeconds);
      },
    );
  }

  override _sendError(payload: Buffer, rsinfo: AddressInfo, packet?: CoapPacket): void {
    if (packet === undefined) return;
    const reason = payload.toString('utf8');
    const requestId = randomUUID();
    this.hooks.onBrokenRequest(reason, rsinfo, requestId);
    this.uploads.finish(exchangeKey(packet, rsinfo));
    this.replyWithError(packet, rsinfo, '4.00', new AppError('INVALID_BODY', `the request could not be processed: ${reason}`), undefined, requestId);
  }

  /** Answers a request here, without node-coap: the error's JSON body, and Max-Age on a 4.29 (RFC 8516 §3). */
  private replyWithError(packet: CoapPacket, rsinfo: AddressInfo, code: string, error: AppError, maxAgeSeconds?: number, requestId = randomUUID()): void {
    if (!(this._sock instanceof Socket)) return;
    const body = { ...toErrorBody(error), requestId };
    try {
      const reply = generate({
        code,
        messageId: packet.messageId,
        token: packet.token,
        ack: packet.confirmable === true,
        options: [
          ...(maxAgeSeconds === undefined ? [] : [{ name: 'Max-Age' as const, value: Buffer.of(maxAgeSeconds) }]),
          { name: 'Content-Format', value: JSON_FORMAT },
        ],
        payload: Buffer.from(JSON.stringify(body)),
      });
      this._sock.send(reply, rsinfo.port, rsinfo.address);
    } catch {
      // The socket is closing, or the packet cannot be answered; nothing else to do for a request already refused.
    }
  }

  override close(done?: (err?: Error) => void): this {
    this.closed = true;
    this.kept.clear();
    this.uploads.clear();
    return super.close(done);
  }
}
