#!/usr/bin/env python3
"""LinkRunway benchmarks. Each one measures our server and a limit (nginx doing the same trivial job) in the same run,
on loopback, with wrk, and reports the ratio. Both servers run as shipped: LinkRunway with its default settings (its
access log at `info`, written to a file), nginx with its access log written to a file. Results are saved as JSON under
bench/results/."""
import json
import os
import platform
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import openloop

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# LRBIN=path runs the benchmarks against another build of the server (to alternate two builds in partial runs).
BINARY = os.environ.get("LRBIN") or os.path.join(ROOT, ".build", "release", "linkrunway")
RESULTS = os.path.join(ROOT, "bench", "results")
DURATION = int(os.environ.get("BENCH_SECONDS", "5"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
CONNECTIONS = int(os.environ.get("BENCH_CONNECTIONS", "64"))
THREADS = 2
# The install-match benchmark's offered load (issue target: p99 <= 5 ms at 2,000 matches/s).
MATCH_RATE = int(os.environ.get("BENCH_MATCH_RATE", "2000"))
# Its rounds: at the default rate and length they claim half of the 100,000 clicks from the client's address.
MATCH_ROUNDS = 5


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(url, seconds=20):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1) as response:
                if response.status == 200:
                    return
        except Exception:
            time.sleep(0.05)
    raise RuntimeError(f"{url} did not answer")


def start_nginx(workdir, port):
    conf = os.path.join(workdir, "nginx.conf")
    with open(conf, "w") as f:
        f.write(f"""
worker_processes auto;
pid {workdir}/nginx.pid;
error_log {workdir}/nginx-error.log warn;
daemon off;
events {{ worker_connections 4096; }}
http {{
    access_log {workdir}/nginx-access.log;
    keepalive_requests 1000000;
    client_body_temp_path {workdir}/body;
    proxy_temp_path {workdir}/proxy;
    fastcgi_temp_path {workdir}/fastcgi;
    uwsgi_temp_path {workdir}/uwsgi;
    scgi_temp_path {workdir}/scgi;
    server {{
        listen 127.0.0.1:{port};
        location = /healthz {{
            default_type application/json;
            return 200 '{{"status":"ok","version":"0.2.0"}}';
        }}
        location = /r {{
            return 302 https://apps.apple.com/app/id123456789;
        }}
    }}
}}
""")
    process = subprocess.Popen(["nginx", "-c", conf, "-p", workdir], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for(f"http://127.0.0.1:{port}/healthz")
    return process


# What differs from the shipped defaults, and why (stated in every report).
SETTINGS = {
    "linkrunway": "default settings: log level info (one access line a request), written to a file; rate limits off only "
                  "for the benchmarks that send a limited route's whole load from one address and key (matches, postbacks, "
                  "notifications), where they would measure themselves",
    "nginx": "worker_processes auto, keepalive_requests 1000000, access_log (combined format) to a file",
}


def start_linkrunway(workdir, port, database_url=None, extra_env=None, rate_limits=True):
    """Starts `linkrunway serve` with its defaults, standard error to a file as a service manager would keep it;
    returns the process and the admin key it printed on first start (or None)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LINKRUNWAY_")}
    env.update(LINKRUNWAY_PORT=str(port), LINKRUNWAY_DATABASE_URL=database_url or f"sqlite:{workdir}/bench.db", **(extra_env or {}))
    if not rate_limits:
        env.update(LINKRUNWAY_RATE_LIMIT_ADDRESS="0", LINKRUNWAY_RATE_LIMIT_KEY="0", LINKRUNWAY_RATE_LIMIT_INSTALL_EVENTS="0")
    log = open(os.path.join(workdir, f"linkrunway-{port}.log"), "ab")
    process = subprocess.Popen([BINARY, "serve"], env=env, stdout=subprocess.PIPE, stderr=log, text=True)
    admin_key = None
    for line in process.stdout:
        if line.strip().startswith("lr_ak_"):
            admin_key = line.strip()
        if "listening on" in line:
            break
    if process.poll() is not None:
        raise RuntimeError(f"linkrunway serve exited with status {process.returncode}")
    threading.Thread(target=lambda: [None for _ in process.stdout], daemon=True).start()
    wait_for(f"http://127.0.0.1:{port}/healthz")
    return process, admin_key


def parse_wrk(text):
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    latency = {}
    for pct, value, unit in re.findall(r"^\s+(50|75|90|99)%\s+([\d.]+)(us|ms|s)\s*$", text, re.M):
        latency[f"p{pct}_ms"] = float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]
    errors = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
    socket_errors = re.search(r"Socket errors: (.*)", text)
    return {"requests_per_second": rps, **latency, "non_2xx": int(errors.group(1)) if errors else 0,
            "socket_errors": socket_errors.group(1).strip() if socket_errors else ""}


def wrk(url, seconds, headers=()):
    extra = [arg for header in headers for arg in ("-H", header)]
    subprocess.run(["wrk", "-t", str(THREADS), "-c", str(CONNECTIONS), "-d", "2s", *extra, url], capture_output=True, check=True)  # warm-up
    out = subprocess.run(["wrk", "-t", str(THREADS), "-c", str(CONNECTIONS), "-d", f"{seconds}s", "--latency", *extra, url],
                         capture_output=True, text=True, check=True).stdout
    result = parse_wrk(out)
    result["requests"] = int(re.search(r"(\d+) requests in", out).group(1))
    return result


THREAD_NAMES = {"MHD-worker": "libmicrohttpd threads", "linkrunway-log": "log writer", "writer-sqlite": "store writer",
                "writer-postgres": "store writers", "reader-sqlite": "store readers", "reader-postgres": "store readers"}


def thread_group(comm):
    """perf's thread name, as a reader knows it (the Swift concurrency pool's threads are named after their queue)."""
    if comm in THREAD_NAMES:
        return THREAD_NAMES[comm]
    return "Swift tasks and dispatch queues" if "qos" in comm else comm


def profile(pid, url, headers=(), script=None, seconds=5):
    """Samples the server with `perf` (with call graphs) while wrk loads it; returns where the time goes: the share of
    each thread group and of each library (self time), and the top functions of user space by inclusive time (the
    samples in the function or anything it called), Swift names demangled. Without perf (or its rights), None."""
    if not shutil.which("perf"):
        return None
    data = tempfile.mktemp(prefix="linkrunway-perf-")
    extra = [arg for header in headers for arg in ("-H", header)] + (["-s", script] if script else [])
    load = subprocess.Popen(["wrk", "-t", str(THREADS), "-c", str(CONNECTIONS), "-d", f"{seconds + 2}s", *extra, url],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(1)
        recorded = subprocess.run(["perf", "record", "-F", "999", "-g", "-p", str(pid), "-o", data, "--", "sleep", str(seconds)],
                                  capture_output=True)
        if recorded.returncode != 0:
            return None
        def report(sort, children=False, limit="0.5"):
            out = subprocess.run(["perf", "report", "-i", data, "--children" if children else "--no-children", "--sort", sort,
                                  "--stdio", "-g", "none", "--percent-limit", limit], capture_output=True, text=True).stdout
            return [line.split(None, len(sort.split(",")) + (1 if children else 0))
                    for line in out.splitlines() if line.strip() and not line.startswith("#")]
        threads = {}
        for parts in report("comm"):
            group = thread_group(parts[1].strip())
            threads[group] = round(threads.get(group, 0) + float(parts[0].rstrip("%")), 1)
        libraries = {}
        for parts in report("dso"):
            name = parts[1].strip().strip("[]")
            name = {"kernel.kallsyms": "kernel", "linkrunway": "LinkRunway's code"}.get(name, re.sub(r"\.so[.0-9]*$", "", name))
            libraries[name] = round(libraries.get(name, 0) + float(parts[0].rstrip("%")), 1)
        functions = []
        for parts in report("dso,symbol", children=True, limit="2"):
            # children%, self%, dso, [.] symbol: user-space functions only, without the frames every thread starts in.
            if len(parts) < 4 or "[.]" not in parts[3][:4]:
                continue
            symbol = re.split(r"\s{2,}", parts[3].split("] ", 1)[-1].strip())[0]
            if symbol.startswith("0x") or symbol in ("start_thread", "clone", "__clone3") or "NSThreadStart" in symbol \
                    or symbol.startswith("$s10Foundation6ThreadC4main") or symbol == "[unknown]":
                continue
            if shutil.which("swift") and symbol.startswith("$s"):
                symbol = subprocess.run(["swift", "demangle", "--simplified", "--compact"], input=symbol, capture_output=True,
                                        text=True).stdout.strip() or symbol
            functions.append({"percent": float(parts[0].rstrip("%")), "self": float(parts[1].rstrip("%")), "where": parts[2],
                              "function": symbol[:120]})
            if len(functions) == 14:
                break
        return {"threads": dict(sorted(threads.items(), key=lambda kv: -kv[1])),
                "libraries": dict(sorted(libraries.items(), key=lambda kv: -kv[1])), "functions": functions,
                "how": f"perf record -F 999 -g for {seconds} s under the same wrk load; functions of user space by inclusive time"}
    finally:
        load.wait()
        if os.path.exists(data):
            os.remove(data)


def stop(process):
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()


def median_run(runs):
    """The run with the median throughput (its latencies come with it)."""
    return sorted(runs, key=lambda r: r["requests_per_second"])[len(runs) // 2]


def alternate(ours_url, limit_url, headers=(), rounds=ROUNDS):
    """Measures both in turns, `rounds` times, so that noise from a shared machine hits both alike; which goes first
    changes every round, so that neither always runs on the state (a fuller table, a longer WAL) the other left."""
    ours_runs, limit_runs = [], []
    for index in range(rounds):
        if index % 2 == 0:
            limit_runs.append(wrk(limit_url, DURATION, headers))
            ours_runs.append(wrk(ours_url, DURATION, headers))
        else:
            ours_runs.append(wrk(ours_url, DURATION, headers))
            limit_runs.append(wrk(limit_url, DURATION, headers))
    return median_run(ours_runs), median_run(limit_runs), ours_runs, limit_runs


def healthz_vs_nginx(workdir):
    nginx_port, our_port, quiet_port = free_port(), free_port(), free_port()
    nginx = start_nginx(workdir, nginx_port)
    ours_process, _ = start_linkrunway(workdir, our_port)
    try:
        ours, limit, ours_runs, limit_runs = alternate(f"http://127.0.0.1:{our_port}/healthz",
                                                       f"http://127.0.0.1:{nginx_port}/healthz")
        where = profile(ours_process.pid, f"http://127.0.0.1:{our_port}/healthz")
    finally:
        stop(ours_process)
    # What the access log costs: the same server with its log at warn (no line a request), in rounds beside the default.
    quiet_process, _ = start_linkrunway(workdir, quiet_port, f"sqlite:{workdir}/quiet.db", extra_env={"LINKRUNWAY_LOG_LEVEL": "warn"})
    logged_process, _ = start_linkrunway(workdir, our_port)
    try:
        logged, quiet, _, _ = alternate(f"http://127.0.0.1:{our_port}/healthz", f"http://127.0.0.1:{quiet_port}/healthz")
    finally:
        stop(quiet_process)
        stop(logged_process)
        stop(nginx)
    return {
        "name": "healthz_vs_nginx",
        "what": "GET /healthz on LinkRunway vs nginx `return 200` with the same body, keep-alive, both with their access "
                "logs to a file; median of alternating rounds",
        "ours": {**ours, "with_log_at_warn_requests_per_second": quiet["requests_per_second"],
                 "access_log_share": round(1 - logged["requests_per_second"] / quiet["requests_per_second"], 3)},
        "limit": {"name": "nginx", **limit},
        "throughput_ratio": round(ours["requests_per_second"] / limit["requests_per_second"], 3),
        "rounds": {"ours": [r["requests_per_second"] for r in ours_runs], "limit": [r["requests_per_second"] for r in limit_runs]},
        "profile": where,
    }


SAFARI_26 = ("Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.0 "
             "Mobile/15E148 Safari/604.1")
IPHONE = "User-Agent: Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148"


def api_post(port, path, key, body):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(), method="POST",
                                     headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.load(response)


def redirect_vs_nginx(workdir, backend="sqlite"):
    """A link followed from an iPhone: LinkRunway answers 302 only after the click is durably stored (SQLite with FULL
    sync, or PostgreSQL); nginx answers `return 302` from its configuration."""
    nginx_port, our_port = free_port(), free_port()
    if backend == "postgres":
        admin_url, name, database_url = postgres_database("bench_redirect")
    else:
        database = f"{workdir}/redirect.db"
        database_url = f"sqlite:{database}"
    nginx = start_nginx(workdir, nginx_port)
    ours_process, key = start_linkrunway(workdir, our_port, database_url)
    try:
        workspace = api_get(our_port, "/v1/workspaces", key)["items"][0]["id"]
        api_post(our_port, "/v1/apps", key, {"workspaceId": workspace, "name": "Bench", "teamId": "ABCDE12345",
                                              "bundleId": "com.bench.app", "appStoreId": "123456789"})
        api_post(our_port, "/v1/links", key, {"workspaceId": workspace, "path": "r"})
        ours, limit, ours_runs, limit_runs = alternate(f"http://127.0.0.1:{our_port}/r", f"http://127.0.0.1:{nginx_port}/r",
                                                       headers=("Host: localhost", IPHONE))
        where = profile(ours_process.pid, f"http://127.0.0.1:{our_port}/r", headers=("Host: localhost", IPHONE))
    finally:
        stop(ours_process)
        stop(nginx)
    if backend == "postgres":
        stored = int(subprocess.run(["psql", database_url, "-tA", "-c", "SELECT COUNT(*) FROM clicks"], capture_output=True, text=True,
                                    check=True).stdout.strip())
        drop_postgres_database(admin_url, name)
    else:
        import sqlite3
        stored = sqlite3.connect(database).execute("SELECT COUNT(*) FROM clicks").fetchone()[0]
    answered = sum(r["requests"] for r in ours_runs)  # warm-up clicks are stored too, so stored >= answered
    return {
        "name": "redirect_vs_nginx" if backend == "sqlite" else "redirect_postgres_vs_nginx",
        "what": "GET /<link> from an iPhone: LinkRunway's 302 after a durable click ("
                + ("SQLite, synchronous=FULL" if backend == "sqlite" else "PostgreSQL, synchronous_commit on") + ", group commit) vs "
                "nginx `return 302`; median of alternating rounds",
        "ours": {**ours, "clicks_stored": stored, "clicks_answered_in_measured_rounds": answered},
        "limit": {"name": "nginx", **limit},
        "throughput_ratio": round(ours["requests_per_second"] / limit["requests_per_second"], 3),
        "rounds": {"ours": [r["requests_per_second"] for r in ours_runs], "limit": [r["requests_per_second"] for r in limit_runs]},
        "profile": where,
    }


# Five rules that do not hold for the benchmark's iPhone (a country, languages, Android, tablets, old iOS), then one
# that does, splitting its clicks between three weighted variants; UTM values on every web destination.
ROUTED_LINK = {
    "rules": [
        {"name": "French-speaking countries", "when": {"countries": ["FR", "BE", "CH", "CA"]}, "url": "https://example.com/fr"},
        {"name": "German and Dutch", "when": {"languages": ["de", "nl"]}, "url": "https://example.com/de"},
        {"name": "Android", "when": {"platforms": ["android"]}, "url": "https://play.google.com/store/apps/details?id=com.bench"},
        {"name": "Tablets", "when": {"devices": ["tablet"]}, "url": "https://example.com/tablet"},
        {"name": "Old iOS", "when": {"platforms": ["ios"], "osVersion": {"max": "15"}}, "url": "https://example.com/old"},
        {"name": "Current iOS", "when": {"platforms": ["ios"], "osVersion": {"min": "16"}},
         "variants": [{"name": "a", "weight": 50, "url": "https://example.com/a"}, {"name": "b", "weight": 30},
                      {"name": "c", "weight": 20, "url": "https://example.com/c"}]},
    ],
    "variants": [{"name": "web-a", "weight": 1}, {"name": "web-b", "weight": 1, "url": "https://example.com/web-b"}],
    "utm": {"source": "bench", "medium": "email", "campaign": "rules"},
    "destinations": {"web": "https://example.com/web"},
}
ENGLISH = "Accept-Language: en-US,en;q=0.9"


def redirect_rules_vs_plain(workdir):
    """A link with six rules and weighted variants beside a plain link on the same server, from the same iPhone: the
    cost of evaluating the compiled rules on the redirect's hot path (target: within 10% of the plain redirect)."""
    our_port = free_port()
    database = f"{workdir}/rules.db"
    ours_process, key = start_linkrunway(workdir, our_port, f"sqlite:{database}")
    headers = ("Host: localhost", IPHONE, ENGLISH)
    try:
        workspace = api_get(our_port, "/v1/workspaces", key)["items"][0]["id"]
        api_post(our_port, "/v1/apps", key, {"workspaceId": workspace, "name": "Bench", "teamId": "ABCDE12345",
                                              "bundleId": "com.bench.app", "appStoreId": "123456789"})
        api_post(our_port, "/v1/links", key, {"workspaceId": workspace, "path": "plain"})
        api_post(our_port, "/v1/links", key, {"workspaceId": workspace, "path": "routed", **ROUTED_LINK})
        # More rounds than the others: the difference sought (10%) is of the size of this machine's noise.
        ours, limit, ours_runs, limit_runs = alternate(f"http://127.0.0.1:{our_port}/routed", f"http://127.0.0.1:{our_port}/plain",
                                                       headers=headers, rounds=2 * ROUNDS + 1)
        where = profile(ours_process.pid, f"http://127.0.0.1:{our_port}/routed", headers=headers)
    finally:
        stop(ours_process)
    import sqlite3
    connection = sqlite3.connect(database)
    variants = dict(connection.execute("SELECT COALESCE(variant, '-'), COUNT(*) FROM clicks c JOIN links l ON l.id = c.link_id "
                                       "WHERE l.path = 'routed' GROUP BY variant").fetchall())
    stored = sum(variants.values())
    return {
        "name": "redirect_rules_vs_plain",
        "what": "GET /<link> from an iPhone (Accept-Language en-US) to a link with six rules (the sixth holds: three weighted "
                "variants) and UTM values, vs a plain link on the same server (SQLite, synchronous=FULL; no country database, "
                f"so the country rule costs its check and no lookup); median of {2 * ROUNDS + 1} alternating rounds",
        "ours": {**ours, "clicks_stored": stored, "clicks_by_variant": variants,
                 "clicks_answered_in_measured_rounds": sum(r["requests"] for r in ours_runs)},
        "limit": {"name": "plain redirect", **limit},
        "throughput_ratio": round(ours["requests_per_second"] / limit["requests_per_second"], 3),
        "rounds": {"ours": [r["requests_per_second"] for r in ours_runs], "limit": [r["requests_per_second"] for r in limit_runs]},
        "profile": where,
    }


# The start of wrk scripts that number their threads (`tid`) and count their requests (`counter`).
NUMBERED_THREADS = """
local counter = 0
local threads = {}
function setup(thread)
  thread:set("tid", #threads + 1)
  table.insert(threads, thread)
end
"""

WRITE_SCRIPT = NUMBERED_THREADS + """
function init(args)
  prefix = "com.bench.t" .. tid .. ".n"
end
function request()
  counter = counter + 1
  local body = '{"workspaceId":"WORKSPACE","name":"Bench","teamId":"ABCDE12345","bundleId":"' .. prefix .. counter .. '"}'
  return wrk.format("POST", "/v1/apps", {["Authorization"] = "Bearer KEY", ["Content-Type"] = "application/json"}, body)
end
"""

BULK_COLUMNS = "id, workspace_id, name, team_id, bundle_id, app_store_id, platforms, created_at, updated_at"


def api_get(port, path, key):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers={"Authorization": f"Bearer {key}"})
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.load(response)


def wrk_writes(port, key, workspace, workdir):
    script = os.path.join(workdir, "writes.lua")
    with open(script, "w") as f:
        f.write(WRITE_SCRIPT.replace("WORKSPACE", workspace).replace("KEY", key))
    out = subprocess.run(["wrk", "-t", str(THREADS), "-c", str(CONNECTIONS), "-d", f"{DURATION}s", "--latency", "-s", script,
                          f"http://127.0.0.1:{port}/v1/apps"], capture_output=True, text=True, check=True).stdout
    result = parse_wrk(out)
    result["requests"] = int(re.search(r"(\d+) requests in", out).group(1))
    return result


def sqlite_bulk_rows_per_second(path, workspace, rows):
    import sqlite3
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA synchronous=FULL")
    started = time.perf_counter()
    db.execute("BEGIN IMMEDIATE")
    db.execute(f"""WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < {rows})
                   INSERT INTO apps ({BULK_COLUMNS}) SELECT 'app_bulk' || n, ?, 'Bulk', 'ABCDE12345', 'com.bulk.n' || n,
                   NULL, 'ios', 0, 0 FROM s""", (workspace,))
    db.execute("COMMIT")
    elapsed = time.perf_counter() - started
    db.close()
    return rows / elapsed


def postgres_bulk_rows_per_second(url, workspace, rows):
    out = subprocess.run(["psql", url, "-q", "-v", "ON_ERROR_STOP=1", "-c", "\\timing on", "-c",
                          f"INSERT INTO apps ({BULK_COLUMNS}) SELECT 'app_bulk' || n, '{workspace}', 'Bulk', 'ABCDE12345', "
                          f"'com.bulk.n' || n, NULL, 'ios', 0, 0 FROM generate_series(1, {rows}) n"],
                         capture_output=True, text=True, check=True).stdout
    milliseconds = float(re.search(r"Time: ([\d.]+) ms", out).group(1))
    return rows / (milliseconds / 1000)


def postgres_database(prefix):
    """A new database on the throwaway server; returns the admin URL, its name and its URL."""
    admin_url = os.environ["LINKRUNWAY_TEST_POSTGRES_URL"]
    name = f"{prefix}_{int(time.time() * 1000)}"
    subprocess.run(["psql", admin_url, "-q", "-c", f"CREATE DATABASE {name}"], check=True)
    return admin_url, name, admin_url.rsplit("/", 1)[0] + "/" + name


def drop_postgres_database(admin_url, name):
    subprocess.run(["psql", admin_url, "-q", "-c", f"DROP DATABASE {name} WITH (FORCE)"], check=False)


def writes_vs_bulk(workdir, backend):
    """Acknowledged, durable app creations through the API (auth, validation, group commit) beside one bulk INSERT of
    the same number of rows straight into the database."""
    port = free_port()
    if backend == "postgres":
        admin_url, name, database_url = postgres_database("bench_writes")
    else:
        database_url = f"sqlite:{workdir}/writes.db"
    process, key = start_linkrunway(workdir, port, database_url)
    try:
        workspace = api_get(port, "/v1/workspaces", key)["items"][0]["id"]
        ours = wrk_writes(port, key, workspace, workdir)
    finally:
        stop(process)
    rows = max(ours["requests"], 1000)
    if backend == "postgres":
        bulk = postgres_bulk_rows_per_second(database_url, workspace, rows)
        drop_postgres_database(admin_url, name)
    else:
        bulk = sqlite_bulk_rows_per_second(database_url[len("sqlite:"):], workspace, rows)
    return {
        "name": f"writes_{backend}",
        "what": f"POST /v1/apps through the API on {backend} (each answered after a durable group commit) vs one bulk "
                f"INSERT … SELECT of the same {rows} rows",
        "ours": {**ours, "rows_per_second": ours["requests_per_second"]},
        "limit": {"name": "bulk INSERT", "rows_per_second": round(bulk, 1), "requests_per_second": round(bulk, 1)},
        "throughput_ratio": round(ours["requests_per_second"] / bulk, 4),
    }


EVENT_SCRIPT = NUMBERED_THREADS + """
function request()
  local body
  if BATCH > 1 then
    local items = {}
    for i = 1, BATCH do
      counter = counter + 1
      items[i] = '{"eventId":"t' .. tid .. '-' .. counter .. '","type":"OPEN","installId":"bench","timestamp":"2026-01-01T00:00:00Z"}'
    end
    body = '{"events":[' .. table.concat(items, ",") .. ']}'
  else
    counter = counter + 1
    body = '{"eventId":"t' .. tid .. '-' .. counter .. '","type":"OPEN","installId":"bench","timestamp":"2026-01-01T00:00:00Z"}'
  end
  return wrk.format("POST", PATH, {["Authorization"] = "Bearer KEY", ["Content-Type"] = "application/json"}, body)
end
"""

MATCH_SCRIPT = NUMBERED_THREADS + """
function request()
  counter = counter + 1
  local body = '{"installId":"m' .. tid .. '-' .. counter .. '","platform":"ios","consent":true}'
  return wrk.format("POST", "/v1/installs/match", {["Authorization"] = "Bearer KEY", ["Content-Type"] = "application/json"}, body)
end
"""


def wrk_script_file(workdir, name, script):
    file = os.path.join(workdir, f"{name}.lua")
    with open(file, "w") as f:
        f.write(script)
    return file


def wrk_script(port, path, script, workdir, name):
    file = wrk_script_file(workdir, name, script)
    out = subprocess.run(["wrk", "-t", str(THREADS), "-c", str(CONNECTIONS), "-d", f"{DURATION}s", "--latency", "-s", file,
                          f"http://127.0.0.1:{port}{path}"], capture_output=True, text=True, check=True).stdout
    result = parse_wrk(out)
    result["requests"] = int(re.search(r"(\d+) requests in", out).group(1))
    if os.environ.get("BENCH_DEBUG"):
        print(out)
    return result


def events_setup(workdir, database_url):
    """A server with an app, a publishable key and a matched install named `bench`."""
    port = free_port()
    # One loopback client stands for many devices, so the per-client limits (events among the rate-limited routes,
    # each install's daily allowance) are off, as for the match and postback benchmarks.
    process, key = start_linkrunway(workdir, port, database_url, rate_limits=False)
    workspace = api_get(port, "/v1/workspaces", key)["items"][0]["id"]
    app = api_post(port, "/v1/apps", key, {"workspaceId": workspace, "name": "Events", "teamId": "ABCDE12345", "bundleId": "com.bench.events"})
    publishable = api_post(port, "/v1/keys", key, {"kind": "publishable", "appId": app["id"]})["secret"]
    api_post(port, "/v1/installs/match", publishable, {"installId": "bench", "platform": "ios", "consent": True})
    return process, port, publishable, workspace, app["id"]


def sqlite_bulk_events_per_second(database, workspace, app_id, rows):
    import sqlite3
    db = sqlite3.connect(database, isolation_level=None)
    db.execute("PRAGMA synchronous=FULL")
    started = time.perf_counter()
    db.execute("BEGIN IMMEDIATE")
    db.execute(f"""WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < {rows})
                   INSERT INTO events (app_id, event_id, workspace_id, install_id, type, occurred_at, attested, method, source, received_at)
                   SELECT ?, 'bulk' || n, ?, 'bench', 'OPEN', 0, 0, 'unmatched', 'organic', 0 FROM s""", (app_id, workspace))
    db.execute("COMMIT")
    elapsed = time.perf_counter() - started
    db.close()
    return rows / elapsed


def postgres_bulk_events_per_second(url, workspace, app_id, rows):
    out = subprocess.run(["psql", url, "-q", "-v", "ON_ERROR_STOP=1", "-c", "\\timing on", "-c",
                          "INSERT INTO events (app_id, event_id, workspace_id, install_id, type, occurred_at, attested, method, source, received_at) "
                          f"SELECT '{app_id}', 'bulk' || n, '{workspace}', 'bench', 'OPEN', 0, 0, 'unmatched', 'organic', "
                          f"(extract(epoch from now()) * 1000)::bigint FROM generate_series(1, {rows}) n"],
                         capture_output=True, text=True, check=True).stdout
    return rows / (float(re.search(r"Time: ([\d.]+) ms", out).group(1)) / 1000)


def events_vs_bulk(workdir, batch, backend="sqlite"):
    """Events acknowledged through the API (one per request, or `batch` per request) beside one bulk INSERT … SELECT
    of the same number of rows."""
    if backend == "postgres":
        admin_url, name, database_url = postgres_database("bench_events")
    else:
        database = f"{workdir}/events-{batch}.db"
        database_url = f"sqlite:{database}"
    process, port, key, workspace, app_id = events_setup(workdir, database_url)
    path = "/v1/events/batch" if batch > 1 else "/v1/events"
    try:
        ours = wrk_script(port, path, EVENT_SCRIPT.replace("BATCH", str(batch)).replace("PATH", f'"{path}"').replace("KEY", key),
                          workdir, f"events{batch}")
        where = profile(process.pid, f"http://127.0.0.1:{port}{path}", script=os.path.join(workdir, f"events{batch}.lua")) \
            if backend == "sqlite" else None
    finally:
        stop(process)
    events_per_second = ours["requests_per_second"] * batch
    rows = max(ours["requests"] * batch, 1000)
    if backend == "postgres":
        bulk = postgres_bulk_events_per_second(database_url, workspace, app_id, rows)
        drop_postgres_database(admin_url, name)
    else:
        bulk = sqlite_bulk_events_per_second(database, workspace, app_id, rows)
    return {
        "name": f"events_{'batch' if batch > 1 else 'single'}_{backend}",
        "what": (f"POST /v1/events/batch with {batch} events per request" if batch > 1 else "POST /v1/events, one event per request")
                + f" ({backend}, durable group commit) vs one bulk INSERT … SELECT of the same {rows} rows",
        "ours": {**ours, "events_per_second": round(events_per_second, 1)},
        "limit": {"name": "bulk INSERT", "rows_per_second": round(bulk, 1), "requests_per_second": round(bulk, 1)},
        "throughput_ratio": round(events_per_second / bulk, 4),
        "profile": where,
    }


def fdatasync_latency(workdir, count=1000):
    """The disk's flush as a durable write pays it: `fdatasync` after each 4 KiB append to a file in `workdir`."""
    path = os.path.join(workdir, "fdatasync.probe")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    took = []
    try:
        for _ in range(count):
            os.write(fd, b"\0" * 4096)
            began = time.perf_counter()
            os.fdatasync(fd)
            took.append(time.perf_counter() - began)
    finally:
        os.close(fd)
        os.remove(path)
    took.sort()
    return {"p50_ms": round(took[count // 2] * 1000, 3), "p99_ms": round(took[count * 99 // 100] * 1000, 3)}


def match_latency(workdir):
    """POST /v1/installs/match with probabilistic matching on, one million clicks in the window (a tenth of them from
    the benchmark's own address), each request a new install."""
    import hashlib
    import hmac
    import secrets
    import sqlite3
    database = f"{workdir}/match.db"
    port = free_port()
    process, key = start_linkrunway(workdir, port, f"sqlite:{database}")
    try:
        workspace = api_get(port, "/v1/workspaces", key)["items"][0]["id"]
        app = api_post(port, "/v1/apps", key, {"workspaceId": workspace, "name": "Match", "teamId": "ABCDE12345",
                                               "bundleId": "com.bench.match", "appStoreId": "123456789",
                                               "attribution": {"probabilisticMinutes": 60}})
        link = api_post(port, "/v1/links", key, {"workspaceId": workspace, "path": "m"})
        publishable = api_post(port, "/v1/keys", key, {"kind": "publishable", "appId": app["id"]})["secret"]
        import http.client
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        connection.request("GET", "/m", headers={"Host": "localhost", "User-Agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X)"})  # creates today's address key
        assert connection.getresponse().status == 302
    finally:
        stop(process)
    db = sqlite3.connect(database, isolation_level=None)
    # The day's address key is sealed with the secret key file; the click made above carries this address's hash.
    ours_hash = db.execute("SELECT address_hash FROM clicks WHERE address_hash IS NOT NULL LIMIT 1").fetchone()[0]
    now = int(time.time() * 1000)
    db.execute("BEGIN")
    db.executemany("INSERT INTO clicks (token, kind, link_id, workspace_id, app_id, platform, os_version, address_hash, created_at) "
                   "VALUES (?, 'click', ?, ?, ?, 'ios', '17.4', ?, ?)",
                   ((secrets.token_hex(16), link["id"], workspace, app["id"], ours_hash if i % 10 == 0 else secrets.token_hex(16),
                     now - (i * 3_500_000) // 1_000_000) for i in range(1_000_000)))
    db.execute("COMMIT")
    db.close()
    process, _ = start_linkrunway(workdir, port, f"sqlite:{database}", rate_limits=False)
    def match_request(i):
        body = json.dumps({"installId": f"open-{i}", "platform": "ios", "consent": True}).encode()
        return (f"POST /v1/installs/match HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {publishable}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body
    try:
        # What the generator and this machine add before any match is made: the same open loop at the same rate to
        # /healthz (no store), and the disk's own flush, which every acknowledged match waits for.
        floor = openloop.run("127.0.0.1", port, MATCH_RATE, DURATION * 2, lambda i: b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        # A warm-up at the same rate (as wrk's benchmarks have theirs): the first seconds of a server just started on a
        # database just written pay for cold pages, caches and statements, not for matching.
        openloop.run("127.0.0.1", port, MATCH_RATE, DURATION, lambda i: match_request(MATCH_ROUNDS * MATCH_RATE * DURATION + i))
        runs = [openloop.run("127.0.0.1", port, MATCH_RATE, DURATION, lambda i, r=r: match_request(r * MATCH_RATE * DURATION + i))
                for r in range(MATCH_ROUNDS)]
        ours = sorted(runs, key=lambda run: run["p99_ms"])[len(runs) // 2]
        where = profile(process.pid, f"http://127.0.0.1:{port}/v1/installs/match", script=wrk_script_file(
            workdir, "match", MATCH_SCRIPT.replace("KEY", publishable)))
    finally:
        stop(process)
    flush = fdatasync_latency(workdir)
    matched = sqlite3.connect(database).execute("SELECT COUNT(*) FROM installs WHERE method = 'probabilistic'").fetchone()[0]
    return {
        "name": "match_latency_sqlite",
        "what": f"POST /v1/installs/match, probabilistic on, 1,000,000 clicks in the window (100,000 from the client's address), "
                f"offered at a fixed {MATCH_RATE} matches/s by an open-loop generator (bench/openloop.py: latency counted from "
                f"when each request was due), after a warm-up of {DURATION} s at that rate; the round of median p99 of "
                f"{MATCH_ROUNDS} rounds of {DURATION} s; beside it, in the same run, the same generator to GET /healthz and "
                f"the disk's fdatasync of a 4 KiB append",
        "ours": {**ours, "probabilistic_matches": matched,
                 "healthz_p50_ms": floor["p50_ms"], "healthz_p99_ms": floor["p99_ms"],
                 "fdatasync_p50_ms": flush["p50_ms"], "fdatasync_p99_ms": flush["p99_ms"]},
        "profile": where,
        "rounds": {"p50_ms": [run["p50_ms"] for run in runs], "p99_ms": [run["p99_ms"] for run in runs]},
        "limit": {"name": "target p99", "p99_ms": 5.0, "requests_per_second": 0},
        "throughput_ratio": round(5.0 / ours.get("p99_ms", 5.0), 3),
    }


POSTBACK_SCRIPT = """
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Host"] = "localhost"
wrk.body = BODY
"""

VECTOR_POSTBACK = os.path.join(ROOT, "..", "shared", "vectors", "skadnetwork", "postbacks", "com.example-4.0.json")
# Used when the vectors are absent: a 4.0 postback whose signature does not verify, which costs the same ECDSA check.
FALLBACK_POSTBACK = ('{"version":"4.0","ad-network-id":"bench.skadnetwork","source-identifier":"5239","app-id":525463029,'
                     '"transaction-id":"00000000-0000-4000-8000-000000000000","redownload":false,"source-domain":"example.com",'
                     '"fidelity-type":1,"did-win":true,"conversion-value":20,"postback-sequence-index":0,'
                     '"attribution-signature":"MEUCIQDq9Zk0q7jTgqkP7m0RZ8lx6uVtzKY6SvsvFnrTQ0KxfQIgG4nCzB4X0bVvK7uD2QjTTqz7bJfS4o4j2vS4QqPGK2U="}')


def openssl_verify_per_second():
    """`openssl speed ecdsap256` on one core: P-256 verifications per second."""
    out = subprocess.run(["openssl", "speed", "-seconds", "3", "ecdsap256"], capture_output=True, text=True, check=True).stdout
    line = next(l for l in out.splitlines() if "nistp256" in l and "ecdsa" in l)
    return float(line.split()[-1])


def postbacks_vs_openssl(workdir):
    """SKAdNetwork postbacks received, verified and stored (SQLite, durable) per second per core, beside what
    `openssl speed` verifies per second on one core."""
    body = open(VECTOR_POSTBACK).read() if os.path.exists(VECTOR_POSTBACK) else FALLBACK_POSTBACK
    port = free_port()
    process, key = start_linkrunway(workdir, port, f"sqlite:{workdir}/postbacks.db", rate_limits=False)
    try:
        workspace = api_get(port, "/v1/workspaces", key)["items"][0]["id"]
        api_post(port, "/v1/apps", key, {"workspaceId": workspace, "name": "Postbacks", "teamId": "ABCDE12345",
                                         "bundleId": "com.bench.postbacks", "appStoreId": "525463029"})
        ours = wrk_script(port, "/.well-known/skadnetwork/report-attribution/", POSTBACK_SCRIPT.replace("BODY", json.dumps(body)),
                          workdir, "postbacks")
        where = profile(process.pid, f"http://127.0.0.1:{port}/.well-known/skadnetwork/report-attribution/",
                        script=os.path.join(workdir, "postbacks.lua"))
    finally:
        stop(process)
    return {**per_core_vs_openssl("postbacks_vs_openssl", ours, "postbacks_per_second_per_core",
                               "POST /.well-known/skadnetwork/report-attribution/ (verify with Apple's P-256 key, store raw and decoded, "
                               f"SQLite durable; {'Apple example' if body != FALLBACK_POSTBACK else 'unverifiable stand-in'})"),
            "profile": where}


def per_core_vs_openssl(name, ours, field, what):
    """A result whose limit is `openssl speed ecdsap256` verifications per second on one core, measured now."""
    cores = os.cpu_count() or 1
    verify = openssl_verify_per_second()
    per_core = ours["requests_per_second"] / cores
    return {
        "name": name,
        "what": what + " per core vs openssl speed ecdsap256 verifications per second on one core",
        "ours": {**ours, field: round(per_core, 1), "cores": cores},
        "limit": {"name": "openssl ecdsap256 verify", "requests_per_second": round(verify, 1)},
        "throughput_ratio": round(per_core / verify, 4),
    }


ASSN = os.path.join(ROOT, "..", "shared", "vectors", "assn-v2", "apple-library-mock")


def notifications_vs_openssl(workdir):
    """Apple's test App Store notification (its chain under Apple's test root) POSTed to a sandbox surface: the chain
    (intermediate cached after the first) and the ES256 signature checked every time, then recorded (a duplicate after
    the first), per second per core, beside `openssl speed ecdsap256` verifications per second on one core."""
    if not os.path.exists(os.path.join(ASSN, "testNotification.jws")):
        print("no ../shared/vectors/assn-v2: skipping the App Store notification benchmark")
        return None
    jws = open(os.path.join(ASSN, "testNotification.jws")).read().strip()
    port = free_port()
    process, key = start_linkrunway(workdir, port, f"sqlite:{workdir}/notifications.db",
                                    {"LINKRUNWAY_APP_STORE_ROOT": os.path.join(ASSN, "testCA.der")}, rate_limits=False)
    try:
        workspace = api_get(port, "/v1/workspaces", key)["items"][0]["id"]
        app = api_post(port, "/v1/apps", key, {"workspaceId": workspace, "name": "Notifications", "teamId": "ABCDE12345",
                                               "bundleId": "com.example", "appStoreId": "1234"})
        surface = api_post(port, f"/v1/apps/{app['id']}/app-store-surfaces", key, {"environment": "sandbox"})["surface"]
        ours = wrk_script(port, surface["notificationPath"], POSTBACK_SCRIPT.replace("BODY", json.dumps(json.dumps({"signedPayload": jws}))),
                          workdir, "notifications")
    finally:
        stop(process)
    return per_core_vs_openssl("notifications_vs_openssl", ours, "notifications_per_second_per_core",
                               "POST /v1/app-store/notifications/{surface} with Apple's test notification (chain with a cached "
                               "intermediate, leaf and ES256 signature checked each time)")


RETENTION_RATE = 1000
RETENTION_SUBSCRIPTIONS = 100_000


def retention_realtime(workdir):
    """Apple's realtime retention requests (`Get Retention Message`), signed as Apple signs them by a stand-in
    authority the server is given as its App Store root, answered from four rules with 100,000 subscriptions stored,
    offered open loop: each request's latency counts from when it was due."""
    import sqlite3
    root, bodies_file = f"{workdir}/retention-root.pem", f"{workdir}/retention-requests.json"
    subprocess.run([BINARY, "dev", "retention-requests", "--app-apple-id", "123456789", "--count", "5000", "--subscriptions",
                    str(RETENTION_SUBSCRIPTIONS), "--first", "1000000000", "--root-out", root, "--out", bodies_file],
                   check=True, capture_output=True)
    bodies = [body.encode() for body in json.load(open(bodies_file))]
    database = f"{workdir}/retention.db"
    port = free_port()
    env = {"LINKRUNWAY_APP_STORE_ROOT": root}
    process, key = start_linkrunway(workdir, port, f"sqlite:{database}", env)
    try:
        workspace = api_get(port, "/v1/workspaces", key)["items"][0]["id"]
        app = api_post(port, "/v1/apps", key, {"workspaceId": workspace, "name": "Retention", "teamId": "ABCDE12345",
                                               "bundleId": "com.bench.retention", "appStoreId": "123456789"})
        surface = api_post(port, f"/v1/apps/{app['id']}/app-store-surfaces", key, {"environment": "production"})["surface"]
        message = "0d9b2c1e-5a2f-4c7e-9d3b-0000000000%02d"
        rules = {"rules": [{"name": "partners", "when": {"sources": ["affiliate"]}, "answer": {"messageId": message % 1}},
                           {"name": "spring", "when": {"campaigns": ["spring"], "locales": ["en"]}, "answer": {"messageId": message % 2}},
                           {"name": "ads", "when": {"sources": ["apple_ads", "ad"]}, "answer": {"messageId": message % 3}}],
                 "fallback": {"messageId": message % 4}}
        request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/apps/{app['id']}/retention/rules", data=json.dumps(rules).encode(),
                                         method="PUT", headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
        urllib.request.urlopen(request, timeout=10).read()
    finally:
        stop(process)
    db = sqlite3.connect(database, isolation_level=None)
    sources = ["affiliate", "link", "link", "apple_ads", "organic", "unknown"]
    now = int(time.time() * 1000)
    db.execute("BEGIN")
    db.executemany("INSERT INTO app_store_subscriptions (app_id, environment, original_transaction_id, product_id, affiliate_id, campaign, "
                   "source, updated_at) VALUES (?, 'production', ?, 'premium.monthly', ?, ?, ?, ?)",
                   ((app["id"], str(1_000_000_000 + i), "aff_bench0001" if i % 6 == 0 else None, "spring" if i % 3 == 1 else None,
                     sources[i % 6], now) for i in range(RETENTION_SUBSCRIPTIONS)))
    db.execute("COMMIT")
    db.close()
    process, _ = start_linkrunway(workdir, port, f"sqlite:{database}", env, rate_limits=False)
    def realtime_request(i):
        body = bodies[i % len(bodies)]
        return (f"POST {surface['retentionPath']} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n").encode() + body
    try:
        ours = openloop.run("127.0.0.1", port, RETENTION_RATE, DURATION * 2, realtime_request)
    finally:
        stop(process)
    answered = sqlite3.connect(database).execute("SELECT COUNT(*) FROM retention_requests").fetchone()[0]
    return {
        "name": "retention_realtime",
        "what": f"POST /v1/app-store/retention/{{surface}}: Apple's realtime retention request (chain and ES256 signature checked, "
                f"the subscription's source read among {RETENTION_SUBSCRIPTIONS:,} stored, four rules, the answer recorded), "
                f"offered at a fixed {RETENTION_RATE} requests/s by an open-loop generator (bench/openloop.py), 5,000 distinct "
                f"requests in turn; Apple waits 700 ms",
        "ours": {**ours, "requests_recorded": answered},
        "limit": {"name": "target p99", "p99_ms": 70.0, "requests_per_second": 0},
        "throughput_ratio": round(70.0 / max(ours.get("p99_ms", 70.0), 0.001), 3),
    }


def allocations_per_request(workdir):
    """Heap allocations per request on the hot routes, counted by bench/alloc_count.c preloaded into the server (every
    malloc, calloc, realloc and aligned allocation, libmicrohttpd's and SQLite's included), over a few seconds of wrk at
    8 connections: /healthz, a redirect with its durable click, and one event a request."""
    if not shutil.which("gcc"):
        print("no gcc: skipping allocations_per_request")
        return None
    library = os.path.join(workdir, "alloc_count.so")
    subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", library, os.path.join(ROOT, "bench", "alloc_count.c"), "-ldl"], check=True)
    counts = os.path.join(workdir, "allocations.txt")
    database_url = f"sqlite:{workdir}/allocations.db"
    port = free_port()
    process, key = start_linkrunway(workdir, port, database_url,
                                    extra_env={"LD_PRELOAD": library, "LINKRUNWAY_ALLOC_COUNT_FILE": counts})
    def allocated():
        os.kill(process.pid, signal.SIGUSR2)
        for _ in range(50):
            time.sleep(0.05)
            try:
                with open(counts) as f:
                    text = f.read().split()
                os.remove(counts)
                return int(text[0])
            except (FileNotFoundError, IndexError):
                continue
        raise RuntimeError("the allocation counter did not answer")
    def per_request(url, headers=(), script=None):
        extra = [arg for header in headers for arg in ("-H", header)] + (["-s", script] if script else [])
        subprocess.run(["wrk", "-t", "1", "-c", "8", "-d", "1s", *extra, url], capture_output=True, check=True)  # warm-up
        before = allocated()
        out = subprocess.run(["wrk", "-t", "1", "-c", "8", "-d", "3s", *extra, url], capture_output=True, text=True, check=True).stdout
        after = allocated()
        requests = int(re.search(r"(\d+) requests in", out).group(1))
        return round((after - before) / max(requests, 1), 1)
    try:
        workspace = api_get(port, "/v1/workspaces", key)["items"][0]["id"]
        app = api_post(port, "/v1/apps", key, {"workspaceId": workspace, "name": "Bench", "teamId": "ABCDE12345",
                                                "bundleId": "com.bench.app", "appStoreId": "123456789"})
        api_post(port, "/v1/links", key, {"workspaceId": workspace, "path": "r"})
        publishable = api_post(port, "/v1/keys", key, {"kind": "publishable", "appId": app["id"]})["secret"]
        api_post(port, "/v1/installs/match", publishable, {"installId": "bench", "platform": "ios", "consent": True})
        events = os.path.join(workdir, "allocations-events.lua")
        with open(events, "w") as f:
            f.write(EVENT_SCRIPT.replace("BATCH", "1").replace("PATH", '"/v1/events"').replace("KEY", publishable))
        found = {
            "healthz": per_request(f"http://127.0.0.1:{port}/healthz"),
            "redirect": per_request(f"http://127.0.0.1:{port}/r", headers=("Host: localhost", IPHONE)),
            "event": per_request(f"http://127.0.0.1:{port}/v1/events", script=events),
        }
    finally:
        stop(process)
    return {
        "name": "allocations_per_request",
        "what": "heap allocations per request (bench/alloc_count.c preloaded: every malloc, calloc, realloc and aligned "
                "allocation of the process, libmicrohttpd's and SQLite's included), wrk with 8 connections for 3 s: "
                "GET /healthz, a redirect with its durable click, POST /v1/events with one event",
        "ours": {f"{name}_allocations": value for name, value in found.items()},
    }


# The dimensions with year rows on SQLite (LinkRollup.yearlyDimensions): every breakdown, not the total.
YEARLY_DIMENSIONS = ("platform", "osVersion", "country", "referrer", "inAppBrowser", "variant", "qr")


def year_of_rollups(link_id, first_day, days=365):
    """The daily figures of a busy link for a year, as the writer would have kept them: every day its totals, 3
    platforms, 10 OS versions, 3 variants, scans and taps (clicks, opens, installs, two event types and revenue in two
    currencies each), 60 countries and 100 referrer hosts (clicks and opens): about 150,000 day rows, and the month rows
    that sum them, and the breakdowns' year rows (LinkRollup.yearlyDimensions). Previews and bots: four clients a day."""
    import random
    rng = random.Random(7)
    earning = ["click", "open", "install", "event:PURCHASE", "event:SUBSCRIPTION", "revenue:USD", "revenue:EUR"]
    values = {"platform": ["ios", "android", "desktop"], "osVersion": [f"ios {v}" for v in range(12, 19)] + ["android 13", "android 14", ""],
              "variant": ["a", "b", "c"], "qr": ["scan", "tap"]}
    places = {"country": [f"{chr(65 + i // 26)}{chr(65 + i % 26)}" for i in range(60)],
              "referrer": [f"site{i}.example.com" for i in range(99)] + [""]}
    rows = []
    for day in range(first_day, first_day + days):
        for measure in earning:
            rows.append((link_id, "total", day, "", measure, rng.randint(1000, 5000)))
        for dimension, names in values.items():
            for value in names:
                for measure in earning:
                    rows.append((link_id, dimension, day, value, measure, rng.randint(1, 2000)))
        for dimension, names in places.items():
            for value in names:
                for measure in ("click", "open"):
                    rows.append((link_id, dimension, day, value, measure, rng.randint(1, 200)))
    periods = {}
    for link, dimension, day, value, measure, amount in rows:
        for period, start in (("month", month_start(day)), ("year", year_start(day))):
            if period == "year" and dimension not in YEARLY_DIMENSIONS:
                continue
            key = (link, dimension, period, start, value, measure)
            periods[key] = periods.get(key, 0) + amount
    rows = [(link, dimension, "day", day, value, measure, amount) for link, dimension, day, value, measure, amount in rows]
    rows += [(link, dimension, period, start, value, measure, amount) for (link, dimension, period, start, value, measure), amount in periods.items()]
    visits = [(day, kind, agent, rng.randint(1, 300)) for day in range(first_day, first_day + days)
              for kind, agent in (("preview", "slackbot"), ("preview", "twitterbot"), ("bot", "googlebot"), ("bot", "HEAD"))]
    return rows, visits


def month_start(day):
    """The first day (days since 1970) of the UTC month of `day`."""
    import datetime
    date = datetime.date(1970, 1, 1) + datetime.timedelta(days=day)
    return (date.replace(day=1) - datetime.date(1970, 1, 1)).days


def next_month(month):
    return month_start(month + 31)


def year_start(day):
    """The first day (days since 1970) of the UTC year of `day`."""
    import datetime
    date = datetime.date(1970, 1, 1) + datetime.timedelta(days=day)
    return (date.replace(month=1, day=1) - datetime.date(1970, 1, 1)).days


def next_year(year):
    return year_start(year + 366)


def piece_rows(piece, today):
    """The rows of one value a piece reads: its periods that start on or before today."""
    period, first, last, _ = piece
    if period == "day":
        return max(0, min(last, today) - first + 1)
    step = next_year if period == "year" else next_month
    count, start = 0, first
    while start <= min(last, today):
        count, start = count + 1, step(start)
    return count


def month_pieces(first_day, last_day, today):
    """The rows that cover a range from months and days (LinkStatsQueries.monthPieces): month rows for the months it
    covers whole, and for a month it covers in part either its days in the range, or the month's row less its days
    outside the range where those are fewer (days after today count as none). (period, first, last, subtracted)."""
    added, subtracted, months = [], [], []
    start = month_start(first_day)
    while start <= last_day:
        end = next_month(start) - 1
        in_first, in_last = max(first_day, start), min(last_day, end)
        before, after = in_first - start, max(0, min(end, today) - in_last)
        inside = max(0, min(in_last, today) - in_first + 1)
        if in_first == start and in_last == end:
            months.append(start)
        elif before + after < inside:
            months.append(start)
            if before > 0:
                subtracted.append(("day", start, in_first - 1, True))
            if in_last < end:
                subtracted.append(("day", in_last + 1, end, True))
        else:
            added.append(("day", in_first, in_last, False))
        start = end + 1
    whole = [("month", months[0], months[-1], False)] if months else []
    return whole + added + subtracted


def range_pieces(first_day, last_day, today):
    """The rows that cover a range as the server reads them once year rows are made (LinkStatsQueries.pieces): a year
    the range covers in part from its months and days, or as its year row less the months and days outside, whichever
    reads fewer rows; runs of one period and sign joined."""
    chosen = []
    start = year_start(first_day)
    while start <= last_day:
        end = next_year(start) - 1
        in_first, in_last = max(first_day, start), min(last_day, end)
        whole = [("year", start, start, False)]
        negate = lambda pieces: [(p, a, b, not s) for p, a, b, s in pieces]
        if in_first > start:
            whole += negate(month_pieces(start, in_first - 1, today))
        if in_last < end:
            whole += negate(month_pieces(in_last + 1, end, today))
        part = month_pieces(in_first, in_last, today)
        rows = lambda pieces: sum(piece_rows(p, today) for p in pieces)
        chosen += whole if rows(whole) < rows(part) else part
        start = end + 1
    order = {"year": 0, "month": 1, "day": 2}
    joined = []
    for piece in sorted(chosen, key=lambda p: (p[3], order[p[0]], p[1])):
        if joined:
            period, first, last, sign = joined[-1]
            step = {"year": next_year, "month": next_month, "day": lambda d: d + 1}[period]
            if period == piece[0] and sign == piece[3] and step(last) == piece[1]:
                joined[-1] = (period, first, piece[2], sign)
                continue
        joined.append(piece)
    return joined


def stats_queries(connection, link_id, first_day, last_day, today):
    """What GET /v1/links/{id}/stats reads for every dimension on SQLite, straight in SQLite: the days, previews and
    bots, whether year rows may be read, and each breakdown's rows over the range from years, months and days (added
    up by the reader, as SQLite's one writer keeps one lane)."""
    rows = connection.execute("SELECT day, measure, amount FROM link_stats WHERE link_id = ? AND dimension = 'total' AND period = 'day' "
                              "AND day >= ? AND day <= ?", (link_id, first_day, last_day)).fetchall()
    rows += connection.execute("SELECT day, kind, visits FROM link_automated_visits WHERE link_id = ? AND day >= ? AND day <= ?",
                               (link_id, first_day, last_day)).fetchall()
    rows += connection.execute("SELECT value FROM instance_meta WHERE name = 'link_stats_years'").fetchall()
    for dimension in ("platform", "osVersion", "country", "referrer", "variant", "qr"):
        for period, first, last, _ in range_pieces(first_day, last_day, today):
            rows += connection.execute("SELECT value, measure, amount FROM link_stats WHERE link_id = ? AND dimension = ? AND period = ? "
                                       "AND day >= ? AND day <= ?", (link_id, dimension, period, first, last)).fetchall()
    return rows


def sqlite_queries_per_second(database, link_id, first_day, last_day, seconds):
    """The same reads on THREADS connections of their own for `seconds`: sets of queries per second and the p50 and
    p99 of one set."""
    import sqlite3
    timings = []
    lock = threading.Lock()

    def worker():
        connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
        mine = []
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            started = time.perf_counter()
            stats_queries(connection, link_id, first_day, last_day, last_day)
            mine.append(time.perf_counter() - started)
        with lock:
            timings.extend(mine)
    threads = [threading.Thread(target=worker) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    timings.sort()
    return {"requests_per_second": round(len(timings) / seconds, 1), "p50_ms": round(timings[len(timings) // 2] * 1000, 3),
            "p99_ms": round(timings[int(len(timings) * 0.99)] * 1000, 3), "requests": len(timings)}


# Rounds of one answer's latency alone (`link_stats_year`).
ALONE_ROUNDS = 5


def sequential_latency(port, path, key, count=300):
    """`count` requests one after another on one keep-alive connection: the p50 and p99 of one answer, with no queue."""
    import http.client
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    timings = []
    for _ in range(count):
        started = time.perf_counter()
        connection.request("GET", path, headers={"Authorization": f"Bearer {key}"})
        response = connection.getresponse()
        response.read()
        if response.status != 200:
            raise RuntimeError(f"GET {path} answered {response.status}")
        timings.append(time.perf_counter() - started)
    connection.close()
    timings.sort()
    return {"alone_p50_ms": round(timings[len(timings) // 2] * 1000, 3), "alone_p99_ms": round(timings[int(len(timings) * 0.99)] * 1000, 3)}


def link_stats_year(workdir):
    """A year of a busy link's figures read through GET /v1/links/{id}/stats (every breakdown), beside the same
    queries straight in SQLite: the rollups make the answer independent of the clicks behind it."""
    import sqlite3
    port = free_port()
    database = f"{workdir}/stats.db"
    process, key = start_linkrunway(workdir, port, f"sqlite:{database}")
    try:
        workspace = api_get(port, "/v1/workspaces", key)["items"][0]["id"]
        link = api_post(port, "/v1/links", key, {"workspaceId": workspace, "path": "busy", "destinations": {"web": "https://example.com"}})
    finally:
        stop(process)
    last_day = int(time.time()) // 86400
    first_day = last_day - 364
    rows, visits = year_of_rollups(link["id"], first_day)
    connection = sqlite3.connect(database)
    with connection:
        connection.executemany("INSERT INTO link_stats (link_id, dimension, period, day, value, measure, amount) VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
        connection.executemany("INSERT INTO link_automated_visits (link_id, workspace_id, day, kind, agent, visits) VALUES (?, ?, ?, ?, ?, ?)",
                               [(link["id"], workspace, *visit) for visit in visits])
    clicks = connection.execute("SELECT SUM(amount) FROM link_stats WHERE dimension = 'total' AND period = 'day' AND measure = 'click'").fetchone()[0]
    connection.close()
    day = lambda n: time.strftime("%Y-%m-%d", time.gmtime(n * 86400))
    path = f"/v1/links/{link['id']}/stats?from={day(first_day)}&to={day(last_day)}"
    process, _ = start_linkrunway(workdir, port, f"sqlite:{database}")
    headers = (f"Authorization: Bearer {key}",)
    try:
        answer = api_get(port, path, key)
        if answer["total"]["clicks"] != clicks or len(answer["days"]) != 365:
            raise RuntimeError(f"the figures read back are not the ones stored: {answer['total']['clicks']} clicks, {clicks} stored")
        # One answer alone, in five rounds (this machine slows by half for a second at a time): the medians of their
        # p50s and p99s.
        alone_runs = [sequential_latency(port, path, key) for _ in range(ALONE_ROUNDS)]
        alone = {name: sorted(run[name] for run in alone_runs)[len(alone_runs) // 2] for name in ("alone_p50_ms", "alone_p99_ms")}
        ours_runs, limit_runs = [], []
        for _ in range(ROUNDS):
            limit_runs.append(sqlite_queries_per_second(database, link["id"], first_day, last_day, DURATION))
            ours_runs.append(wrk(f"http://127.0.0.1:{port}{path}", DURATION, headers))
        ours, limit = median_run(ours_runs), median_run(limit_runs)
        where = profile(process.pid, f"http://127.0.0.1:{port}{path}", headers=headers)
    finally:
        stop(process)
    return {
        "name": "link_stats_year",
        "what": f"GET /v1/links/{{id}}/stats over 365 days of a busy link ({len(rows):,} rollup rows by day and month, and by year for the breakdowns: totals, 3 platforms, 10 OS versions, "
                "3 variants, scan or tap, 60 countries and 100 referrers a day; every breakdown in one answer; SQLite) vs the same "
                f"queries straight in SQLite on {THREADS} connections; median of alternating rounds, and one answer's latency alone "
                f"(300 requests one after another on one connection; medians of {ALONE_ROUNDS} rounds)",
        "ours": {**ours, **alone, "rollup_rows": len(rows), "clicks_read_back": clicks},
        "limit": {"name": "the same queries in SQLite", **limit},
        "throughput_ratio": round(ours["requests_per_second"] / limit["requests_per_second"], 3),
        "rounds": {"ours": [r["requests_per_second"] for r in ours_runs], "limit": [r["requests_per_second"] for r in limit_runs],
                   "alone_p99_ms": [r["alone_p99_ms"] for r in alone_runs]},
        "profile": where,
    }


UNSEEN_AGENTS_SCRIPT = """
local agents = {}
for line in io.lines("AGENTS") do agents[#agents + 1] = line end
""" + NUMBERED_THREADS + """
-- Made before the load, so that sending a request costs wrk the same whatever its User-Agent.
local requests = {}
function init(args)
  for i = 1, 20000 do
    local agent = agents[i % #agents + 1] .. UNIQUE
    requests[i] = wrk.format("GET", "/p", {["Host"] = "localhost", ["User-Agent"] = agent, ["Sec-Purpose"] = "prefetch"})
  end
end
function request()
  counter = counter + 1
  return requests[counter % #requests + 1]
end
"""


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def people_agents():
    """The real browsers' User-Agents of the classifier's test corpus (fetched from PyPI the first time)."""
    subprocess.run(["bash", os.path.join(ROOT, "scripts", "user-agent-corpora.sh")], check=True, cwd=ROOT)
    with open(os.path.join(ROOT, ".build", "user-agents", "browsers.jsonl")) as f:
        return sorted({json.loads(line)["useragent"] for line in f if line.strip()})


def classifier_unseen_agents(workdir):
    """Every visit a User-Agent the server has not seen lately, beside the same visit from one it classified before: what
    telling people from machines, reading the OS and naming the in-app browser costs a request (target: within 20%).
    The visits are prefetches (`Sec-Purpose: prefetch`), answered as the link would be but with no click written, so
    the write path does not hide the classifier."""
    agents = people_agents()
    agents_file = os.path.join(workdir, "agents.txt")
    with open(agents_file, "w") as f:
        f.write("\n".join(agents) + "\n")
    port = free_port()
    process, key = start_linkrunway(workdir, port, f"sqlite:{workdir}/agents.db")
    seen_file = os.path.join(workdir, "seen.txt")
    with open(seen_file, "w") as f:
        f.write(SAFARI_26 + "\n")
    try:
        workspace = api_get(port, "/v1/workspaces", key)["items"][0]["id"]
        api_post(port, "/v1/apps", key, {"workspaceId": workspace, "name": "Bench", "teamId": "ABCDE12345",
                                          "bundleId": "com.bench.app", "appStoreId": "123456789"})
        api_post(port, "/v1/links", key, {"workspaceId": workspace, "path": "p", "destinations": {"web": "https://example.com/p"}})
        # Every one of them is a person (a machine would get the preview page): the redirect, without a click.
        opener = urllib.request.build_opener(NoRedirect)
        for i, agent in enumerate(agents[::max(1, len(agents) // 50)]):
            request = urllib.request.Request(f"http://127.0.0.1:{port}/p", headers={"Host": "localhost", "User-Agent": f"{agent} r0.{i}",
                                                                                    "Sec-Purpose": "prefetch"})
            try:
                opener.open(request, timeout=5)
                sys.exit(f"classifier_unseen_agents: {agent} was not redirected")
            except urllib.error.HTTPError as answer:
                if answer.code != 302:
                    sys.exit(f"classifier_unseen_agents: {agent} got {answer.code}, not the redirect")
        # The same script for both, so wrk's own work (on the same two cores) is the same: one User-Agent, unchanged,
        # for the limit.
        script = UNSEEN_AGENTS_SCRIPT.replace("AGENTS", agents_file).replace("UNIQUE", '" r" .. tid .. "." .. i')
        seen = UNSEEN_AGENTS_SCRIPT.replace("AGENTS", seen_file).replace("UNIQUE", '""')
        ours_runs, limit_runs = [], []
        pair = [("unseen", script, ours_runs), ("seen", seen, limit_runs)]
        for name, text, _ in pair:
            wrk_script(port, "/p", text, workdir, name)  # warm-up
        # As many rounds as the rules' benchmark: the difference sought is of the size of this machine's noise.
        for i in range(2 * ROUNDS + 1):
            for name, text, runs in (pair if i % 2 == 0 else pair[::-1]):
                runs.append(wrk_script(port, "/p", text, workdir, name))
        ours, limit = median_run(ours_runs), median_run(limit_runs)
        where = profile(process.pid, f"http://127.0.0.1:{port}/p", script=wrk_script_file(workdir, "unseen", script))
    finally:
        stop(process)
    import sqlite3
    stored = sqlite3.connect(f"{workdir}/agents.db").execute("SELECT COUNT(*) FROM clicks").fetchone()[0]
    return {
        "name": "classifier_unseen_agents",
        "what": f"GET /<link> as a prefetch (no click written), each request a User-Agent not seen lately (the {len(agents):,} real "
                "browsers of the classifier's corpus made into 20,000 distinct ones a wrk thread by a counter and sent in "
                "turn, so the server's cache of the last 2,048 never holds the next) vs the same request from one Safari 26 "
                f"User-Agent it has classified before; both made before the load by the same wrk script; median of "
                f"{2 * ROUNDS + 1} alternating rounds",
        "ours": {**ours, "agents": len(agents), "clicks_stored": stored},
        "limit": {"name": "one User-Agent, seen before", **limit},
        "throughput_ratio": round(ours["requests_per_second"] / limit["requests_per_second"], 3),
        "rounds": {"ours": [r["requests_per_second"] for r in ours_runs], "limit": [r["requests_per_second"] for r in limit_runs]},
        "profile": where,
    }


# Every benchmark by the name its result carries, in the order they run.
BENCHMARKS = [
    ("healthz_vs_nginx", healthz_vs_nginx),
    ("allocations_per_request", allocations_per_request),
    ("redirect_vs_nginx", redirect_vs_nginx),
    ("redirect_rules_vs_plain", redirect_rules_vs_plain),
    ("classifier_unseen_agents", classifier_unseen_agents),
    ("link_stats_year", link_stats_year),
    ("writes_sqlite", lambda w: writes_vs_bulk(w, "sqlite")),
    ("events_single_sqlite", lambda w: events_vs_bulk(w, 1)),
    ("events_batch_sqlite", lambda w: events_vs_bulk(w, 100)),
    ("match_latency_sqlite", match_latency),
    ("postbacks_vs_openssl", postbacks_vs_openssl),
    ("notifications_vs_openssl", notifications_vs_openssl),
    ("retention_realtime", retention_realtime),
    ("redirect_postgres_vs_nginx", lambda w: redirect_vs_nginx(w, "postgres")),
    ("writes_postgres", lambda w: writes_vs_bulk(w, "postgres")),
    ("events_single_postgres", lambda w: events_vs_bulk(w, 1, "postgres")),
]
# BENCH_ONLY=name,name runs some (to study one while changing it); the saved report is then partial.
ONLY = [name for name in os.environ.get("BENCH_ONLY", "").split(",") if name]


def main():
    for tool in ("wrk", "nginx"):
        if not shutil.which(tool):
            sys.exit(f"{tool} is missing: run `make bench`, which installs it")
    if not os.path.exists(BINARY):
        sys.exit("build first: make build")
    workdir = tempfile.mkdtemp(prefix="linkrunway-bench-")
    results = []
    try:
        for name, run in BENCHMARKS:
            if ONLY and name not in ONLY:
                continue
            if "postgres" in name and not os.environ.get("LINKRUNWAY_TEST_POSTGRES_URL"):
                print(f"no PostgreSQL (LINKRUNWAY_TEST_POSTGRES_URL): skipping {name}")
                continue
            result = run(workdir)
            if result:
                results.append(result)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    report = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": {"cores": os.cpu_count(), "platform": platform.platform()},
        "settings": {"seconds": DURATION, "rounds": ROUNDS, "connections": CONNECTIONS, "wrk_threads": THREADS, **SETTINGS},
        "results": results,
    }
    os.makedirs(RESULTS, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    # A partial run (BENCH_ONLY) is kept apart: latest.json, which the report is made from, always holds every benchmark.
    names = [f"partial-{stamp}.json"] if ONLY else [f"bench-{stamp}.json", "latest.json"]
    for name in names:
        with open(os.path.join(RESULTS, name), "w") as f:
            json.dump(report, f, indent=2)
            f.write("\n")
    for r in results:
        ours, limit = r["ours"], r.get("limit")
        if limit is None:
            print(f"{r['name']}: " + ", ".join(f"{k} {v}" for k, v in ours.items() if isinstance(v, (int, float))))
            continue
        if r["name"] == "match_latency_sqlite":
            print(f"{r['name']}: {ours['requests_per_second']:.0f} matches/s, p50 {ours.get('p50_ms', 0):.2f} ms, "
                  f"p99 {ours.get('p99_ms', 0):.2f} ms (target p99 <= 5 ms); {ours['probabilistic_matches']} probabilistic matches; "
                  f"floor: /healthz p50 {ours['healthz_p50_ms']:.2f} ms, p99 {ours['healthz_p99_ms']:.2f} ms, "
                  f"fdatasync p50 {ours['fdatasync_p50_ms']:.2f} ms, p99 {ours['fdatasync_p99_ms']:.2f} ms")
            continue
        if r["name"] == "retention_realtime":
            print(f"{r['name']}: {ours['requests_per_second']:.0f} requests/s, p50 {ours.get('p50_ms', 0):.2f} ms, "
                  f"p99 {ours.get('p99_ms', 0):.2f} ms (target p99 <= 70 ms, a tenth of Apple's 700 ms); {ours['requests_recorded']} recorded")
            continue
        if r["name"] == "notifications_vs_openssl":
            print(f"{r['name']}: {ours['requests_per_second']:.0f} notifications/s on {ours['cores']} cores "
                  f"({ours['notifications_per_second_per_core']:.0f}/s per core, p99 {ours.get('p99_ms', 0):.2f} ms); openssl verifies "
                  f"{limit['requests_per_second']:.0f}/s on one core; ratio per core {r['throughput_ratio']:.3f}")
            continue
        if r["name"] == "postbacks_vs_openssl":
            print(f"{r['name']}: {ours['requests_per_second']:.0f} postbacks/s on {ours['cores']} cores "
                  f"({ours['postbacks_per_second_per_core']:.0f}/s per core, p99 {ours.get('p99_ms', 0):.2f} ms); openssl verifies "
                  f"{limit['requests_per_second']:.0f}/s on one core; ratio per core {r['throughput_ratio']:.3f} (target 0.5)")
            continue
        if "events_per_second" in ours:
            print(f"{r['name']}: {ours['events_per_second']:.0f} events/s (p99 {ours.get('p99_ms', 0):.2f} ms); "
                  f"bulk INSERT {limit['rows_per_second']:.0f} rows/s; ratio {r['throughput_ratio']:.3f}")
            continue
        print(f"{r['name']}: ours {ours['requests_per_second']:.0f}/s (p50 {ours.get('p50_ms', 0):.2f} ms, "
              f"p99 {ours.get('p99_ms', 0):.2f} ms); {limit['name']} {limit['requests_per_second']:.0f}/s; "
              f"ratio {r['throughput_ratio']:.3f}")
    print(f"saved bench/results/{names[0]}")
    if ONLY:
        return
    subprocess.run([sys.executable, os.path.join(ROOT, "bench", "report.py")], check=True)


if __name__ == "__main__":
    main()
