/** Caps on CoAP block-wise uploads (RFC 7959 Block1) not finished yet, whose blocks node-coap holds in memory. */
export interface CoapUploadLimits {
  /** Unfinished uploads of one client (its IP address). */
  readonly perClient: number;
  /** Bytes the unfinished uploads of one client hold. */
  readonly bytesPerClient: number;
  /** Bytes all unfinished uploads hold. */
  readonly bytesTotal: number;
}

const MiB = 1024 * 1024;

/** COAP_UPLOADS_PER_CLIENT, COAP_UPLOAD_BYTES_PER_CLIENT, COAP_UPLOAD_BYTES_TOTAL when unset. */
export const DEFAULT_COAP_UPLOAD_LIMITS: CoapUploadLimits = Object.freeze({ perClient: 4, bytesPerClient: 2 * MiB, bytesTotal: 64 * MiB });

/**
 * The block-wise uploads (RFC 7959 Block1) under way, and the bytes of their blocks that node-coap keeps until the
 * last one comes: memory held before the request's credentials are ever read (they come with the whole request).
 * Issue 10 §3: a client (an IP address: its ports are free to choose) may have `perClient` of them holding at most
 * `bytesPerClient`, and all of them together at most `bytesTotal`; an upload that gets no block for `idleMs` is
 * forgotten, with the blocks node-coap keeps of it (`drop`).
 */
export type UploadRefusal =
  | { readonly reason: 'uploads'; readonly limit: number }
  | { readonly reason: 'client-bytes'; readonly limit: number }
  | { readonly reason: 'total-bytes'; readonly limit: number };

interface Upload {
  readonly client: string;
  /** Bytes per block offset: a block sent again replaces itself. */
  readonly blocks: Map<number, number>;
  bytes: number;
  readonly timer: NodeJS.Timeout;
}

interface ClientShare {
  uploads: number;
  bytes: number;
}

export class UnfinishedUploads {
  private readonly uploads = new Map<string, Upload>();
  private readonly clients = new Map<string, ClientShare>();
  private totalBytes = 0;

  constructor(
    private readonly limits: CoapUploadLimits,
    private readonly idleMs: number,
    /** Forgets what node-coap keeps of an upload (its Block1 cache entry). */
    private readonly drop: (key: string) => void,
  ) {}

  /**
   * Takes a block that is not the last of upload `key`, or refuses it (the upload is then dropped whole: it can
   * never complete). `offset` is the block's byte position, `bytes` its payload's length.
   */
  admit(key: string, client: string, offset: number, bytes: number): UploadRefusal | undefined {
    let upload = this.uploads.get(key);
    const share = this.clients.get(client) ?? { uploads: 0, bytes: 0 };
    if (upload === undefined) {
      if (share.uploads >= this.limits.perClient) return { reason: 'uploads', limit: this.limits.perClient };
      upload = { client, blocks: new Map(), bytes: 0, timer: setTimeout(() => this.forget(key), this.idleMs) };
      upload.timer.unref();
      this.uploads.set(key, upload);
      share.uploads++;
      this.clients.set(client, share);
    } else {
      upload.timer.refresh();
    }
    const growth = bytes - (upload.blocks.get(offset) ?? 0);
    if (share.bytes + growth > this.limits.bytesPerClient) {
      this.forget(key);
      return { reason: 'client-bytes', limit: this.limits.bytesPerClient };
    }
    if (this.totalBytes + growth > this.limits.bytesTotal) {
      this.forget(key);
      return { reason: 'total-bytes', limit: this.limits.bytesTotal };
    }
    upload.blocks.set(offset, bytes);
    upload.bytes += growth;
    share.bytes += growth;
    this.totalBytes += growth;
    return undefined;
  }

  /** True while upload `key` holds a slot. */
  has(key: string): boolean {
    return this.uploads.has(key);
  }

  /** The upload is over (its last block came, or it was cut short): what it held is free again. */
  finish(key: string): void {
    const upload = this.uploads.get(key);
    if (upload === undefined) return;
    clearTimeout(upload.timer);
    this.uploads.delete(key);
    this.totalBytes -= upload.bytes;
    const share = this.clients.get(upload.client);
    if (share === undefined) return;
    share.uploads--;
    share.bytes -= upload.bytes;
    if (share.uploads === 0) this.clients.delete(upload.client);
  }

  /** Bytes held by every unfinished upload, and how many there are. */
  stats(): { readonly uploads: number; readonly bytes: number } {
    return { uploads: this.uploads.size, bytes: this.totalBytes };
  }

  clear(): void {
    for (const key of [...this.uploads.keys()]) this.finish(key);
  }

  private forget(key: string): void {
    this.finish(key);
    this.drop(key);
  }
}
