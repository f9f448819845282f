-- paths.lua: the wrk script of every scenario of cardcat's load harness.
--
--   wrk -t1 -c32 -d10s --latency -s paths.lua http://127.0.0.1:PORT -- PATHS_FILE [HEADER VALUE [RATE]]
--
-- PATHS_FILE holds one request path per line (card ids, set pages, searches,
-- ...), optionally followed by a tab, a header name, a tab and its value (a
-- header of that request alone); loadbench writes one per scenario. Each request is one of them drawn
-- at random, so a run spreads over the whole list. The requests are
-- formatted once per thread at start, so the work per request in Lua is one
-- random draw. An optional header (X-API-Key) goes with every request
-- (give "" "" for none when a RATE follows).
--
-- Without RATE wrk sends as fast as the server answers (each connection
-- sends its next request when the last is answered: saturation). With RATE
-- (requests per second of this thread) the requests are paced: they take
-- slots RATE apart on one schedule per thread, whichever connection is free
-- sends the next slot's request, and a connection waits for its slot with
-- wrk's delay() (whole milliseconds: a request goes up to 1 ms before its
-- slot, the rate over the run is exact). After a stall the slots behind are
-- sent at once, as requests arriving on their own would be; wrk measures each
-- from when it was sent, so the wait for a free connection is not in the
-- latency (give enough connections that one is always free).
--
-- When wrk is done, one line "loadbench {json}" carries the exact figures
-- loadbench reads (counts, errors, latency percentiles in microseconds).

local threads = 0

function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end

local reqs = {}

local ffi = require("ffi")
ffi.cdef[[
typedef struct { long tv_sec; long tv_nsec; } loadbench_timespec;
int clock_gettime(int clk, loadbench_timespec *ts);
]]
local ts = ffi.new("loadbench_timespec")

-- now_ms reads CLOCK_MONOTONIC (1 on Linux) in milliseconds.
local function now_ms()
  ffi.C.clock_gettime(1, ts)
  return tonumber(ts.tv_sec) * 1000 + tonumber(ts.tv_nsec) / 1e6
end

local interval -- milliseconds between slots; nil: not paced
local next_slot

local function paced_delay()
  local now = now_ms()
  if next_slot == nil then
    next_slot = now
  end
  local slot = next_slot
  next_slot = next_slot + interval
  if slot <= now then
    return 0
  end
  return slot - now
end

function init(args)
  local file = args[1]
  if file == nil then
    error("paths.lua: give the paths file after --")
  end
  local headers = {}
  if args[2] ~= nil and args[2] ~= "" then
    headers[args[2]] = args[3]
  end
  for line in io.lines(file) do
    if line ~= "" then
      -- "PATH<tab>NAME<tab>VALUE": a header of this request alone (the 304
      -- scenario's If-None-Match), besides the run's.
      local path, name, value = line:match("^([^\t]*)\t([^\t]*)\t(.*)$")
      if path == nil then
        reqs[#reqs + 1] = wrk.format("GET", line, headers)
      else
        local h = {}
        for k, v in pairs(headers) do
          h[k] = v
        end
        h[name] = value
        reqs[#reqs + 1] = wrk.format("GET", path, h)
      end
    end
  end
  if #reqs == 0 then
    error("paths.lua: no paths in " .. file)
  end
  math.randomseed(os.time() * 1000 + (tid or 0))
  local rate = tonumber(args[4])
  if rate ~= nil and rate > 0 then
    interval = 1000 / rate
    delay = paced_delay -- wrk looks for delay() after init
  end
end

function request()
  return reqs[math.random(#reqs)]
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'loadbench {"duration_us":%d,"requests":%d,"bytes":%d,' ..
    '"connect_errors":%d,"read_errors":%d,"write_errors":%d,"status_errors":%d,"timeouts":%d,' ..
    '"latency_us":{"min":%d,"mean":%.1f,"max":%d,"p50":%d,"p90":%d,"p99":%d,"p999":%d}}\n',
    summary.duration, summary.requests, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency.min, latency.mean, latency.max,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9)))
end
