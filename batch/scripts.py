"""The Redis scripts of `streams.StreamLedger`: each check-and-change one atomic step, so no replica acts on a claim
or a status another replica has changed meanwhile.

A claim is an entry pending in the stream's consumer group `run`: its consumer is the replica that holds it
and its delivery count the fencing token. XPENDING of one id answers both.
"""

HELD = """
local function held(items, consumer, id, token)
  local p = redis.call('XPENDING', items, 'run', id, id, 1)
  return p[1] ~= nil and p[1][2] == consumer and p[1][4] == tonumber(token)
end
"""

CLAIM = """
-- KEYS: job, items; ARGV: consumer, count, most (0: no bound). The next items no replica has claimed, while the
-- job runs and fewer than `most` of its items are claimed by all replicas together.
if redis.call('HGET', KEYS[1], 'status') ~= 'in_progress' then return {} end
local count, most = tonumber(ARGV[2]), tonumber(ARGV[3])
if most > 0 then
  count = math.min(count, most - redis.call('XPENDING', KEYS[2], 'run')[1])
  if count < 1 then return {} end
end
local read = redis.call('XREADGROUP', 'GROUP', 'run', ARGV[1], 'COUNT', count, 'STREAMS', KEYS[2], '>')
if not read then return {} end
return read[1][2]
"""

RECLAIM = """
-- KEYS: job, items; ARGV: consumer, min idle ms, count. Items whose claims lapsed, with their new tokens.
local s = redis.call('HGET', KEYS[1], 'status')
if s ~= 'in_progress' and s ~= 'cancelling' then return {} end
local taken = redis.call('XAUTOCLAIM', KEYS[2], 'run', ARGV[1], ARGV[2], '0-0', 'COUNT', ARGV[3])
local out = {}
for _, entry in ipairs(taken[2]) do
  local p = redis.call('XPENDING', KEYS[2], 'run', entry[1], entry[1], 1)
  if p[1] then table.insert(out, {entry[1], entry[2], p[1][4]}) end
end
return out
"""

RENEW = (
    HELD
    + """
-- KEYS: items; ARGV: consumer, then (entry id, token) pairs. Renews those still held; returns the ids lost.
local lost = {}
local exists = redis.call('EXISTS', KEYS[1]) == 1
for i = 2, #ARGV, 2 do
  if exists and held(KEYS[1], ARGV[1], ARGV[i], ARGV[i + 1]) then
    redis.call('XCLAIM', KEYS[1], 'run', ARGV[1], 0, ARGV[i], 'JUSTID')
  else
    table.insert(lost, ARGV[i])
  end
end
return lost
"""
)

COMMIT = (
    HELD
    + """
-- KEYS: job, items, lines, warm, written; ARGV: consumer, entry id, token, line, group made warm ('' none),
-- the line's id, then (counter, amount) pairs. Appends the line and ends the claim, only if the claim is still
-- held: 1. 2: this very line was written already (an answer lost on its way back, asked again). 0: refused.
if redis.call('SISMEMBER', KEYS[5], ARGV[6]) == 1 then return 2 end
local s = redis.call('HGET', KEYS[1], 'status')
if s ~= 'in_progress' and s ~= 'cancelling' then return 0 end
if not held(KEYS[2], ARGV[1], ARGV[2], ARGV[3]) then return 0 end
redis.call('XACK', KEYS[2], 'run', ARGV[2])
local ttl = redis.call('TTL', KEYS[1])
redis.call('RPUSH', KEYS[3], ARGV[4])
redis.call('SADD', KEYS[5], ARGV[6])
if ttl > 0 then
  redis.call('EXPIRE', KEYS[3], ttl)
  redis.call('EXPIRE', KEYS[5], ttl)
end
if ARGV[5] ~= '' then
  redis.call('SADD', KEYS[4], ARGV[5])
  if ttl > 0 then redis.call('EXPIRE', KEYS[4], ttl) end
end
for i = 7, #ARGV, 2 do redis.call('HINCRBYFLOAT', KEYS[1], ARGV[i], ARGV[i + 1]) end
return 1
"""
)

DROP = (
    HELD
    + """
-- KEYS: items; ARGV: consumer, entry id, token. Ends a claim without a line (its job was cancelled).
if redis.call('EXISTS', KEYS[1]) == 0 or not held(KEYS[1], ARGV[1], ARGV[2], ARGV[3]) then return 0 end
redis.call('XACK', KEYS[1], 'run', ARGV[2])
return 1
"""
)

RELEASE = (
    HELD
    + """
-- KEYS: items; ARGV: consumer, idle ms, then (entry id, token) pairs. Claims still held handed back, idle
-- long enough that any replica's next reclaim takes them.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
for i = 3, #ARGV, 2 do
  if held(KEYS[1], ARGV[1], ARGV[i], ARGV[i + 1]) then
    redis.call('XCLAIM', KEYS[1], 'run', 'released', 0, ARGV[i], 'IDLE', ARGV[2], 'JUSTID')
  end
end
return 1
"""
)

MARK = """
-- KEYS: job, active; ARGV: statuses allowed now (comma-separated), finalizer expected ('' any), new status,
-- record, job id, ended (1: out of the active set), new finalizer ('' unchanged).
local s = redis.call('HGET', KEYS[1], 'status')
if not s then return 0 end
local allowed = false
for want in string.gmatch(ARGV[1], '[^,]+') do
  if s == want then allowed = true end
end
if not allowed then return 0 end
if ARGV[2] ~= '' and redis.call('HGET', KEYS[1], 'finalizer') ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[3], 'record', ARGV[4])
if ARGV[7] ~= '' then redis.call('HSET', KEYS[1], 'finalizer', ARGV[7]) end
if ARGV[6] == '1' then redis.call('ZREM', KEYS[2], ARGV[5]) end
return 1
"""
