/**
 * The Lua scripts of the Redis session store: each runs atomically in Redis, so two nodes that touch one queue at once
 * (one queues a message, the other marks it sent) never leave it half changed.
 *
 * One queue is seven keys: `q` (sorted set of entry numbers, in queue order), `qp` (entry -> packet), `qmeta`
 * (entry -> "cmd TAB packet-id TAB identity"), `qk` (identity -> entry; identity = "brokerId:counter"), `qm`
 * (packet id -> entry), `qrel` (entries that are PUBRELs) and `qseq` (the last entry number); `queued` counts
 * queued PUBLISH entries of every queue.
 */

/** Shared by the scripts that remove entries: KEYS[1..7] = q, qp, qmeta, qk, qm, qrel, queued ("the queue's seven"). */
const REMOVE_ENTRY = `
local function parse(meta)
  local cmd, id, key = string.match(meta or '', '^([^\\t]*)\\t([^\\t]*)\\t(.*)$')
  return cmd or 'publish', id or '', key or ''
end
local function remove(seq)
  local cmd, id, key = parse(redis.call('HGET', KEYS[3], seq))
  redis.call('ZREM', KEYS[1], seq)
  redis.call('HDEL', KEYS[2], seq)
  redis.call('HDEL', KEYS[3], seq)
  if key ~= '' and redis.call('HGET', KEYS[4], key) == seq then redis.call('HDEL', KEYS[4], key) end
  if id ~= '' and redis.call('HGET', KEYS[5], id) == seq then redis.call('HDEL', KEYS[5], id) end
  if redis.call('SREM', KEYS[6], seq) == 0 then redis.call('DECR', KEYS[7]) end
end
`;

/**
 * Queues a packet for one client unless that message is queued for it already (overlapping filters match twice), then
 * drops the oldest PUBLISH entries over the limit. KEYS: the queue's seven (`queued` last), `qseq`, `dropped`.
 * ARGV: packet, identity ('' when none), limit (0: none), client id. Returns how many it dropped.
 */
export const ENQUEUE = `${REMOVE_ENTRY}
local packet, key, limit, client = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
if key ~= '' and redis.call('HEXISTS', KEYS[4], key) == 1 then return 0 end
local seq = tostring(redis.call('INCR', KEYS[8]))
redis.call('ZADD', KEYS[1], seq, seq)
redis.call('HSET', KEYS[2], seq, packet)
redis.call('HSET', KEYS[3], seq, 'publish\\t\\t' .. key)
if key ~= '' then redis.call('HSET', KEYS[4], key, seq) end
redis.call('INCR', KEYS[7])
local over = redis.call('ZCARD', KEYS[1]) - redis.call('SCARD', KEYS[6]) - limit
if limit == 0 or over <= 0 then return 0 end
local dropped = 0
for _, oldest in ipairs(redis.call('ZRANGE', KEYS[1], 0, over + redis.call('SCARD', KEYS[6]) - 1)) do
  if dropped == over then break end
  if redis.call('SISMEMBER', KEYS[6], oldest) == 0 then
    remove(oldest)
    dropped = dropped + 1
  end
end
redis.call('HINCRBY', KEYS[9], client, dropped)
return dropped
`;

/**
 * aedes' outgoingUpdate. KEYS: the queue's seven. ARGV: the packet's identity ('' when it has no broker id), its packet
 * id ('' when none), the encoded packet, its cmd. The first entry in queue order of the same message gets the packet
 * id (1); else the entry of another message with that packet id is replaced by the packet (2: a PUBREL after PUBREC,
 * or a PUBREL sent again); else 0, "no such packet".
 */
export const UPDATE = `${REMOVE_ENTRY}
local key, id, packet, cmd = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local mine = false
if key ~= '' then mine = redis.call('HGET', KEYS[4], key) end
-- The entry with that packet id counts only when it is another broker's message: an earlier message of the same
-- broker keeps its id (the reference's rule).
local function brokerOf(k) return string.match(k, '^(.*):[^:]*$') or '' end
local other = false
if id ~= '' then
  other = redis.call('HGET', KEYS[5], id)
  if other and key ~= '' then
    local _, _, otherKey = parse(redis.call('HGET', KEYS[3], other))
    if otherKey ~= '' and brokerOf(otherKey) == brokerOf(key) then other = false end
  end
end
if mine and (not other or tonumber(mine) < tonumber(other)) then
  local oldCmd, oldId, oldKey = parse(redis.call('HGET', KEYS[3], mine))
  if oldId ~= '' and redis.call('HGET', KEYS[5], oldId) == mine then redis.call('HDEL', KEYS[5], oldId) end
  redis.call('HSET', KEYS[3], mine, oldCmd .. '\\t' .. id .. '\\t' .. oldKey)
  local current = redis.call('HGET', KEYS[5], id)
  if id ~= '' and (not current or not redis.call('ZSCORE', KEYS[1], current) or tonumber(current) > tonumber(mine)) then
    redis.call('HSET', KEYS[5], id, mine)
  end
  return 1
end
if not other then return 0 end
local oldCmd, _, oldKey = parse(redis.call('HGET', KEYS[3], other))
if oldKey ~= '' and redis.call('HGET', KEYS[4], oldKey) == other then redis.call('HDEL', KEYS[4], oldKey) end
redis.call('HSET', KEYS[2], other, packet)
redis.call('HSET', KEYS[3], other, cmd .. '\\t' .. id .. '\\t' .. key)
if key ~= '' then redis.call('HSET', KEYS[4], key, other) end
if oldCmd == 'publish' and cmd ~= 'publish' then
  redis.call('SADD', KEYS[6], other)
  redis.call('DECR', KEYS[7])
elseif oldCmd ~= 'publish' and cmd == 'publish' then
  redis.call('SREM', KEYS[6], other)
  redis.call('INCR', KEYS[7])
end
return 2
`;

/** aedes' outgoingClearMessageId. KEYS: the queue's seven. ARGV: the packet id. Returns the packet removed, or nil. */
export const CLEAR = `${REMOVE_ENTRY}
local seq = redis.call('HGET', KEYS[5], ARGV[1])
if not seq then return false end
local packet = redis.call('HGET', KEYS[2], seq)
remove(seq)
return packet
`;

/** Takes a refused message back unless sent. KEYS: the queue's seven. ARGV: its identity. Returns 1 when taken back. */
export const DISCARD = `${REMOVE_ENTRY}
local seq = redis.call('HGET', KEYS[4], ARGV[1])
if not seq then return 0 end
local cmd, id = parse(redis.call('HGET', KEYS[3], seq))
if cmd ~= 'publish' or id ~= '' then return 0 end
remove(seq)
return 1
`;

/** Empties a queue. KEYS: the queue's seven, then `qseq`. Returns how many PUBLISH entries it held. */
export const DROP_QUEUE = `
local waiting = redis.call('ZCARD', KEYS[1]) - redis.call('SCARD', KEYS[6])
if waiting > 0 then redis.call('DECRBY', KEYS[7], waiting) end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[8])
return waiting
`;

/**
 * A retained message within its scope's limit. KEYS: `ret` (topic -> packet), `retidx` (topics, sorted). ARGV: topic,
 * packet ('' deletes), scope's first topic, scope's bound, limit. Returns 1 when stored or deleted, 0 when refused.
 */
export const RETAIN_WITHIN = `
local topic, packet = ARGV[1], ARGV[2]
if packet == '' then
  redis.call('HDEL', KEYS[1], topic)
  redis.call('ZREM', KEYS[2], topic)
  return 1
end
if redis.call('HEXISTS', KEYS[1], topic) == 0
  and redis.call('ZLEXCOUNT', KEYS[2], '[' .. ARGV[3], '(' .. ARGV[4]) >= tonumber(ARGV[5]) then
  return 0
end
redis.call('HSET', KEYS[1], topic, packet)
redis.call('ZADD', KEYS[2], 0, topic)
return 1
`;

/**
 * Deletes a will, only for its owner when one is named, and its due time. KEYS: `wills`, `willowner`, `willdue`.
 * ARGV: client id, owner or ''.
 */
export const DELETE_WILL = `
local owner = redis.call('HGET', KEYS[2], ARGV[1])
if not owner or (ARGV[2] ~= '' and owner ~= ARGV[2]) then return false end
local packet = redis.call('HGET', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
return packet
`;

/**
 * MQTT 5 Will Delay: sets a will's due time while its owner still owns it. KEYS: `willowner`, `willdue`. ARGV: client
 * id, owner, due time (ms). Returns 1 when set.
 */
export const DELAY_WILL = `
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return 1
`;

/**
 * Takes the wills due (deleted, returned), so that of several nodes sweeping at once one only gets each; at most
 * ARGV[2] per call, so that no call holds Redis long. KEYS: `wills`, `willowner`, `willdue`. ARGV: now (ms), count.
 * Returns the packets, and as many empty strings as due entries had no will left.
 */
export const TAKE_DUE_WILLS = `
local taken = {}
for _, client in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))) do
  local packet = redis.call('HGET', KEYS[1], client)
  redis.call('HDEL', KEYS[1], client)
  redis.call('HDEL', KEYS[2], client)
  redis.call('ZREM', KEYS[3], client)
  taken[#taken + 1] = packet or ''
end
return taken
`;

/**
 * Puts a taken will back, due later, unless its client stored another since. KEYS: `wills`, `willowner`, `willdue`.
 * ARGV: client id, packet, owner, due time (ms).
 */
export const RETURN_WILL = `
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
return 1
`;

/**
 * A persistent session's connection ended: its last use and, when the broker that ended it held it (or none did), its
 * deadline ('' : none). KEYS: `sessions` (last use), `expiring` (deadlines), `sessheld` (client -> holder TAB
 * interval). ARGV: client id, now (ms), broker, deadline or ''.
 */
export const SESSION_DISCONNECTED = `
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
local held = redis.call('HGET', KEYS[3], ARGV[1])
if held and string.match(held, '^(.*)\\t') ~= ARGV[3] then return 0 end
redis.call('HDEL', KEYS[3], ARGV[1])
if ARGV[4] == '' then redis.call('ZREM', KEYS[2], ARGV[1]) else redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1]) end
return 1
`;

/**
 * A crashed broker's session: its deadline counts from now, unless it was connected again meanwhile. KEYS:
 * `expiring`, `sessheld`. ARGV: client id, the holder entry as read, deadline (ms). Returns 1 when released.
 */
export const RELEASE_SESSION = `
if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
return 1
`;

/**
 * Claims the end of a session: one caller only gets it, however many nodes sweep at once. The session must still be
 * due: its score in KEYS[1] (`expiring`: the deadline; `sessions`: the last use) at or below ARGV[2]. Then its
 * bookkeeping goes and its will is taken (the caller publishes it, or drops it); its subscriptions and queue are the
 * caller's to delete. KEYS: the sorted set checked, `expiring`, `sessions`, `sessheld`, `wills`, `willowner`,
 * `willdue`. ARGV: client id, bound. Returns nil when not claimed, else the will ('' for none).
 */
export const CLAIM_SESSION_END = `
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) > tonumber(ARGV[2]) then return false end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('HDEL', KEYS[4], ARGV[1])
local will = redis.call('HGET', KEYS[5], ARGV[1])
redis.call('HDEL', KEYS[5], ARGV[1])
redis.call('HDEL', KEYS[6], ARGV[1])
redis.call('ZREM', KEYS[7], ARGV[1])
return will or ''
`;

/** Reads and resets a count of a hash. KEYS: the hash. ARGV: the field. */
export const TAKE_COUNT = `
local count = redis.call('HGET', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[1], ARGV[1])
return tonumber(count or '0')
`;
