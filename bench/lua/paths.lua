-- paths.lua: the wrk script of every scenario of cardcat's load harness.
--
--   wrk -t1 -c32 -d10s --latency -s paths.lua http://127.0.0.1:PORT -- PATHS_FILE [HEADER VALUE]
--
-- PATHS_FILE holds one request path per line (card ids, set pages, searches,
-- ...); loadbench writes one per scenario. Each request is one of them drawn
-- at random, so a run spreads over the whole list. The requests are
-- formatted once per thread at start, so the work per request in Lua is one
-- random draw. An optional header (X-API-Key) goes with every request.
--
-- When wrk is done, one line "loadbench {json}" carries the exact figures
-- loadbench reads (counts, errors, latency percentiles in microseconds).

local threads = 0

function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end

local reqs = {}

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
      reqs[#reqs + 1] = wrk.format("GET", line, headers)
    end
  end
  if #reqs == 0 then
    error("paths.lua: no paths in " .. file)
  end
  math.randomseed(os.time() * 1000 + (tid or 0))
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
