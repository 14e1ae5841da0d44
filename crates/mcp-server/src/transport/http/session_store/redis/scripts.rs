//! The Lua scripts that keep a session's keys consistent in one round trip each. Redis runs a
//! script atomically; `redis::Script` sends its hash and falls back to the source after a
//! restart (`NOSCRIPT`).
//!
//! Keys: `KEYS[1]` the record hash, `KEYS[2]` the subscription set, `KEYS[3]` the hash of
//! streams (stream number → who writes it).
//!
//! Each script is hashed once per process (the statics below), not on every call.

use std::sync::LazyLock;

use redis::Script;

/// The scripts, each hashed the first time it runs.
pub(super) static LOADING: LazyLock<Script> = LazyLock::new(|| Script::new(LOAD));
pub(super) static SAVING: LazyLock<Script> = LazyLock::new(|| Script::new(SAVE));
pub(super) static DELETING: LazyLock<Script> = LazyLock::new(|| Script::new(DELETE));
pub(super) static STREAMING: LazyLock<Script> = LazyLock::new(|| Script::new(STREAM));

/// `ARGV`: the time to live (ms), the revision the caller knows (or empty). Returns nil when
/// the session is gone, `{rev}` when unchanged, else `{rev, HGETALL record, SMEMBERS subs}`;
/// every key of the session lives another time to live.
pub(super) const LOAD: &str = r"
if redis.call('PEXPIRE', KEYS[1], ARGV[1]) == 0 then return false end
for i = 2, 3 do redis.call('PEXPIRE', KEYS[i], ARGV[1]) end
local rev = redis.call('HGET', KEYS[1], 'rev')
if rev == ARGV[2] then return {rev} end
return {rev, redis.call('HGETALL', KEYS[1]), redis.call('SMEMBERS', KEYS[2])}
";

/// `ARGV`: the time to live (ms), the number of fields n, n field/value pairs, then
/// subscription changes (`+uri` added, `-uri` removed). Returns 0 when the session is gone.
pub(super) const SAVE: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local n = tonumber(ARGV[2])
for i = 0, n - 1 do redis.call('HSET', KEYS[1], ARGV[3 + 2 * i], ARGV[4 + 2 * i]) end
for i = 3 + 2 * n, #ARGV do
  local op, uri = string.sub(ARGV[i], 1, 1), string.sub(ARGV[i], 2)
  if op == '+' then redis.call('SADD', KEYS[2], uri) else redis.call('SREM', KEYS[2], uri) end
end
redis.call('HINCRBY', KEYS[1], 'rev', 1)
for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ARGV[1]) end
return 1
";

/// `ARGV`: the prefix of the session's event stream keys (the stream number follows).
/// Removes the record, the subscriptions, the streams and their events.
pub(super) const DELETE: &str = r"
for _, n in ipairs(redis.call('HKEYS', KEYS[3])) do redis.call('DEL', ARGV[1] .. n) end
return redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
";

/// One write of a stream, only while its session exists (a late event of a deleted session
/// must not bring its keys back). `KEYS`: the record, the streams hash, the stream. `ARGV`:
/// the time to live (ms), then `open STREAM META`, `event SEQ MESSAGE MAXLEN` or `end`.
pub(super) const STREAM: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if ARGV[2] == 'open' then
  redis.call('HSET', KEYS[2], ARGV[3], ARGV[4])
  redis.call('PEXPIRE', KEYS[2], ARGV[1])
  return 1
elseif ARGV[2] == 'event' then
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[5], '0-' .. ARGV[3], 'm', ARGV[4])
else
  redis.call('XADD', KEYS[3], '1-0', 'end', 1)
end
redis.call('PEXPIRE', KEYS[3], ARGV[1])
return 1
";
