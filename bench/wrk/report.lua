-- wrk script for bench/users.ts: with an argument (a file of request paths, one per line) each
-- thread walks the list from its own offset, one path per request; without one, wrk's URL. At the
-- end it prints one line, `WRK_JSON {...}`, with what bench/users.ts reads.
local paths = nil
local next_index = 0
local threads = 0

function setup(thread)
  thread:set("tid", threads)
  threads = threads + 1
end

function init(args)
  if args[1] == nil then return end
  paths = {}
  for line in io.lines(args[1]) do
    if #line > 0 then paths[#paths + 1] = line end
  end
  -- Threads start far apart in the list, so that they do not ask for the same paths together.
  next_index = (tid * math.floor(#paths / 2 + 1)) % #paths
end

function request()
  if paths == nil then return wrk.request() end
  next_index = next_index % #paths + 1
  return wrk.format("GET", paths[next_index])
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_JSON {"requests":%d,"micros":%d,"bytes":%d,"non2xx":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,' ..
      '"p50":%d,"p90":%d,"p99":%d,"max":%d}\n',
    summary.requests, summary.duration, summary.bytes, e.status, e.connect, e.read, e.write, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
