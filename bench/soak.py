#!/usr/bin/env python3
"""make soak: a mixed load (link redirects, events, install matches, SKAdNetwork postbacks) from wrk on loopback
against the release server on SQLite, for SOAK_SECONDS (default 120). Prints throughput, errors and the server's
memory at the start and the end; the target is no errors and memory flat within 10% after a warm-up. Saves
bench/results/soak-latest.json; exits 1 when the target is missed."""
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (the benchmarks' helpers: server start, API calls, the postback vector)

SECONDS = int(os.environ.get("SOAK_SECONDS", "120"))
WARMUP = min(20, max(5, SECONDS // 6))

SCRIPT = r"""
local counter = 0
local thread_id = 0
local postback = POSTBACK
function setup(thread) thread:set("id", thread_id); thread_id = thread_id + 1 end
function request()
  counter = counter + 1
  local kind = counter % 4
  local unique = id .. "-" .. counter
  if kind == 0 then
    return wrk.format("GET", "/soak", {["Host"] = "localhost", ["User-Agent"] = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X)"})
  elseif kind == 1 then
    return wrk.format("POST", "/v1/events", {["Authorization"] = "Bearer KEY", ["Content-Type"] = "application/json"},
      '{"eventId":"e-' .. unique .. '","type":"CUSTOM","name":"soak","installId":"soak-install","timestamp":"2026-11-30T00:00:00Z"}')
  elseif kind == 2 then
    return wrk.format("POST", "/v1/installs/match", {["Authorization"] = "Bearer KEY", ["Content-Type"] = "application/json"},
      '{"installId":"i-' .. unique .. '","platform":"ios","osVersion":"18.0","consent":true}')
  else
    return wrk.format("POST", "/.well-known/skadnetwork/report-attribution/", {["Content-Type"] = "application/json", ["Host"] = "localhost"}, postback)
  end
end
"""


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"VmRSS:\s+(\d+) kB", f.read()).group(1))


def main():
    if not os.path.exists(bench.BINARY):
        sys.exit("build first: make build")
    workdir = tempfile.mkdtemp(prefix="linkrunway-soak-")
    port = bench.free_port()
    # Matches and postbacks all come from this one address: the rate limits would turn most of them away.
    process, admin = bench.start_linkrunway(workdir, port, f"sqlite:{workdir}/soak.db", rate_limits=False)
    try:
        workspace = bench.api_get(port, "/v1/workspaces", admin)["items"][0]["id"]
        app = bench.api_post(port, "/v1/apps", admin, {"workspaceId": workspace, "name": "Soak", "teamId": "ABCDE12345",
                                                       "bundleId": "com.example.soak", "appStoreId": "525463029"})
        # Probabilistic matching on: every match looks for the newest unclaimed click from the load's one address.
        change = urllib.request.Request(f"http://127.0.0.1:{port}/v1/apps/{app['id']}", method="PATCH",
                                        data=json.dumps({"attribution": {"probabilisticMinutes": 60}}).encode(),
                                        headers={"Authorization": f"Bearer {admin}", "Content-Type": "application/json"})
        urllib.request.urlopen(change, timeout=5).close()
        key = bench.api_post(port, "/v1/keys", admin, {"kind": "publishable", "appId": app["id"]})["secret"]
        bench.api_post(port, "/v1/links", admin, {"workspaceId": workspace, "appId": app["id"], "path": "soak", "appPath": "/soak"})
        bench.api_post(port, "/v1/installs/match", key, {"installId": "soak-install", "platform": "ios", "consent": True})
        postback = open(bench.VECTOR_POSTBACK).read() if os.path.exists(bench.VECTOR_POSTBACK) else bench.FALLBACK_POSTBACK
        script = os.path.join(workdir, "soak.lua")
        with open(script, "w") as f:
            f.write(SCRIPT.replace("KEY", key).replace("POSTBACK", json.dumps(postback)))
        samples = []
        stop = threading.Event()

        def sample():
            started = time.time()
            while not stop.wait(5):
                samples.append((round(time.time() - started), rss_kib(process.pid)))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        out = subprocess.run(["wrk", "-t", "2", "-c", "32", "-d", f"{SECONDS}s", "--latency", "-s", script, f"http://127.0.0.1:{port}/"],
                             capture_output=True, text=True, check=True).stdout
        stop.set()
        sampler.join()
        after_warmup = [rss for t, rss in samples if t >= WARMUP] or [rss_kib(process.pid)]
        start_rss, end_rss = after_warmup[0], rss_kib(process.pid)
        growth = (end_rss - start_rss) / start_rss
        requests = int(re.search(r"(\d+) requests in", out).group(1))
        errors = int(m.group(1)) if (m := re.search(r"Non-2xx or 3xx responses: (\d+)", out)) else 0
        socket = re.search(r"Socket errors: (.*)", out)
        result = {
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "seconds": SECONDS, "warmup_seconds": WARMUP,
            "mix": "redirects, events, install matches (probabilistic, one address), SKAdNetwork postbacks, a quarter each,",
            "requests": requests, "requests_per_second": round(requests / SECONDS, 1), "errors": errors,
            "socket_errors": socket.group(1) if socket else "", "rss_kib_after_warmup": start_rss, "rss_kib_end": end_rss,
            "rss_growth": round(growth, 4), "rss_samples": samples, "p99_ms": bench.parse_wrk(out).get("p99_ms"),
        }
    finally:
        bench.stop(process)
    os.makedirs(bench.RESULTS, exist_ok=True)
    with open(os.path.join(bench.RESULTS, "soak-latest.json"), "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    met = errors == 0 and not result["socket_errors"] and growth <= 0.10
    print(f"soak: {requests} requests in {SECONDS} s ({result['requests_per_second']:.0f}/s, p99 {result['p99_ms']} ms), "
          f"{errors} errors{', socket errors ' + result['socket_errors'] if result['socket_errors'] else ''}; "
          f"memory {start_rss / 1024:.1f} MiB after {WARMUP} s warm-up, {end_rss / 1024:.1f} MiB at the end ({growth:+.1%}); "
          f"target (no errors, memory within 10%) {'met' if met else 'NOT met'}")
    subprocess.run([sys.executable, os.path.join(bench.ROOT, "bench", "report.py")], check=True)
    sys.exit(0 if met else 1)


if __name__ == "__main__":
    main()
