#!/usr/bin/env python3
"""LinkRunway benchmarks. Each one measures our server and a limit (nginx doing the same trivial job) in the same run,
on loopback, with wrk, and reports the ratio. Results are saved as JSON under bench/results/."""
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
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.path.join(ROOT, ".build", "release", "linkrunway")
RESULTS = os.path.join(ROOT, "bench", "results")
DURATION = int(os.environ.get("BENCH_SECONDS", "5"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
CONNECTIONS = int(os.environ.get("BENCH_CONNECTIONS", "64"))
THREADS = 2


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
    access_log off;
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
            return 200 '{{"status":"ok","version":"0.1.0"}}';
        }}
    }}
}}
""")
    process = subprocess.Popen(["nginx", "-c", conf, "-p", workdir], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for(f"http://127.0.0.1:{port}/healthz")
    return process


def start_linkrunway(workdir, port):
    env = dict(os.environ, LINKRUNWAY_LOG_LEVEL="warn", LINKRUNWAY_PORT=str(port),
               LINKRUNWAY_DATABASE_URL=f"sqlite:{workdir}/bench.db")
    process = subprocess.Popen([BINARY, "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for(f"http://127.0.0.1:{port}/healthz")
    return process


def parse_wrk(text):
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    latency = {}
    for pct, value, unit in re.findall(r"^\s+(50|75|90|99)%\s+([\d.]+)(us|ms|s)\s*$", text, re.M):
        latency[f"p{pct}_ms"] = float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]
    errors = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
    socket_errors = re.search(r"Socket errors: (.*)", text)
    return {"requests_per_second": rps, **latency, "non_2xx": int(errors.group(1)) if errors else 0,
            "socket_errors": socket_errors.group(1).strip() if socket_errors else ""}


def wrk(url, seconds):
    subprocess.run(["wrk", "-t", str(THREADS), "-c", str(CONNECTIONS), "-d", "2s", url], capture_output=True, check=True)  # warm-up
    out = subprocess.run(["wrk", "-t", str(THREADS), "-c", str(CONNECTIONS), "-d", f"{seconds}s", "--latency", url],
                         capture_output=True, text=True, check=True).stdout
    return parse_wrk(out)


def stop(process):
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()


def median_run(runs):
    """The run with the median throughput (its latencies come with it)."""
    return sorted(runs, key=lambda r: r["requests_per_second"])[len(runs) // 2]


def alternate(ours_url, limit_url):
    """Measures both in turns, ROUNDS times, so that noise from a shared machine hits both alike."""
    ours_runs, limit_runs = [], []
    for _ in range(ROUNDS):
        limit_runs.append(wrk(limit_url, DURATION))
        ours_runs.append(wrk(ours_url, DURATION))
    return median_run(ours_runs), median_run(limit_runs), ours_runs, limit_runs


def healthz_vs_nginx(workdir):
    nginx_port, our_port = free_port(), free_port()
    nginx = start_nginx(workdir, nginx_port)
    ours_process = start_linkrunway(workdir, our_port)
    try:
        ours, limit, ours_runs, limit_runs = alternate(f"http://127.0.0.1:{our_port}/healthz",
                                                       f"http://127.0.0.1:{nginx_port}/healthz")
    finally:
        stop(ours_process)
        stop(nginx)
    return {
        "name": "healthz_vs_nginx",
        "what": "GET /healthz on LinkRunway vs nginx `return 200` with the same body, keep-alive, access logs off; "
                "median of alternating rounds",
        "ours": ours,
        "limit": {"name": "nginx", **limit},
        "throughput_ratio": round(ours["requests_per_second"] / limit["requests_per_second"], 3),
        "rounds": {"ours": [r["requests_per_second"] for r in ours_runs], "limit": [r["requests_per_second"] for r in limit_runs]},
    }


def main():
    for tool in ("wrk", "nginx"):
        if not shutil.which(tool):
            sys.exit(f"{tool} is missing: run `make bench`, which installs it")
    if not os.path.exists(BINARY):
        sys.exit("build first: make build")
    workdir = tempfile.mkdtemp(prefix="linkrunway-bench-")
    try:
        results = [healthz_vs_nginx(workdir)]
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    report = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": {"cores": os.cpu_count(), "platform": platform.platform()},
        "settings": {"seconds": DURATION, "rounds": ROUNDS, "connections": CONNECTIONS, "wrk_threads": THREADS},
        "results": results,
    }
    os.makedirs(RESULTS, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    for name in (f"bench-{stamp}.json", "latest.json"):
        with open(os.path.join(RESULTS, name), "w") as f:
            json.dump(report, f, indent=2)
            f.write("\n")
    for r in results:
        ours, limit = r["ours"], r["limit"]
        print(f"{r['name']}: ours {ours['requests_per_second']:.0f} req/s (p50 {ours.get('p50_ms', 0):.2f} ms, "
              f"p99 {ours.get('p99_ms', 0):.2f} ms); {limit['name']} {limit['requests_per_second']:.0f} req/s "
              f"(p99 {limit.get('p99_ms', 0):.2f} ms); ratio {r['throughput_ratio']:.2f}")
    print(f"saved bench/results/bench-{stamp}.json")


if __name__ == "__main__":
    main()
