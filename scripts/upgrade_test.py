#!/usr/bin/env python3
"""Upgrades as a customer meets them, with the released binaries scripts/build-releases.sh builds.

upgrade: for each backend (SQLite; PostgreSQL when LINKRUNWAY_TEST_POSTGRES_URL is set), a database filled through the
API of release 0.1.0 is served by today's binary. Every row of every table 0.1.0 made is still there with the values it
had (sealing secrets and the documented derivations apart), a broad set of API reads answers what 0.1.0 answered (new
fields allowed), the link's redirect goes where it went, and today's start names what it now does differently.

rolling (PostgreSQL): a 0.2.0 server keeps serving while today's `linkrunway migrate` runs and a server of today joins
it on the same database; traffic on every route (the main writes for real, the rest refused) goes to both, with no 5xx, and every webhook
delivery either server sends carries a valid signature.

Usage: scripts/upgrade_test.py <today's linkrunway binary>
"""
import hashlib
import hmac
import http.server
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid

RELEASES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".build", "releases")
IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1"
# Columns whose values a newer server may rewrite: secrets it seals in place (docs/deployment.md, "Secrets at rest").
SEALED = {("webhooks", "secret"), ("instance_meta", "value"), ("address_keys", "secret"), ("ad_networks", "private_key")}
# Tables of process state, not customer data.
VOLATILE = {"server_instances", "schema_migrations"}
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("  FAIL: " + message)


class Server:
    """One `linkrunway serve` process on 127.0.0.1, a port of its own."""

    def __init__(self, binary, database_url, work, name, env=None):
        self.name = name
        self.log_path = os.path.join(work, name + ".log")
        environment = dict(os.environ, LINKRUNWAY_LOG_LEVEL="info", LINKRUNWAY_RATE_LIMIT_ADDRESS="0",
                           LINKRUNWAY_SECRET_KEY_FILE=os.path.join(work, "linkrunway.key"), **(env or {}))
        self.log = open(self.log_path, "w")
        self.process = subprocess.Popen([binary, "serve", "--port", "0", "--database-url", database_url],
                                        stdout=self.log, stderr=subprocess.STDOUT, env=environment)
        deadline = time.time() + 120
        while time.time() < deadline:
            text = self.output()
            found = re.search(r"http://127\.0\.0\.1:(\d+)", text)
            if found:
                self.base = "http://127.0.0.1:" + found.group(1)
                key = re.search(r"lr_ak_[A-Za-z0-9]+", text)
                self.admin = key.group(0) if key else None
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.1)
        raise SystemExit(f"{name} did not start:\n{self.output()}")

    def output(self):
        with open(self.log_path) as f:
            return f.read()

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=60)
        self.log.close()

    def request(self, method, path, body=None, key=None, headers=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if key:
            request.add_header("Authorization", "Bearer " + key)
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        opener = urllib.request.build_opener(NoRedirect)
        try:
            with opener.open(request, timeout=30) as response:
                return response.status, response.read(), dict(response.headers)
        except urllib.error.HTTPError as error:
            return error.code, error.read(), dict(error.headers)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def json_of(answer):
    status, body, _ = answer
    try:
        return json.loads(body)
    except ValueError:
        return None


def must(answer, what, statuses=(200, 201)):
    status, body, _ = answer
    if status not in statuses:
        raise SystemExit(f"{what}: {status} {body[:500]!r}")
    return json.loads(body) if body else None


# ---------------------------------------------------------------------------------------------------------------------
# Databases


class Database:
    def __init__(self, url):
        self.url = url

    @staticmethod
    def sqlite(path):
        return Database("sqlite:" + path)

    @staticmethod
    def postgres(base_url, name):
        subprocess.run(["psql", base_url, "-q", "-c", f"DROP DATABASE IF EXISTS {name}", "-c", f"CREATE DATABASE {name}"],
                       check=True, capture_output=True)
        return Database(base_url.rsplit("/", 1)[0] + "/" + name)

    def tables(self):
        """Every table's rows, as lists of {column: value}, keyed by table name."""
        if self.url.startswith("sqlite:"):
            db = sqlite3.connect(self.url[len("sqlite:"):])
            db.row_factory = sqlite3.Row
            names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
            tables = {name: [dict(row) for row in db.execute(f'SELECT * FROM "{name}"')] for name in names}
            db.close()
            return tables
        names = self.psql("SELECT tablename FROM pg_tables WHERE schemaname = 'public'").split()
        tables = {}
        for name in names:
            text = self.psql(f"SELECT row_to_json(t) FROM {name} t")
            tables[name] = [json.loads(line) for line in text.splitlines() if line.strip()]
        return tables

    def psql(self, sql):
        return subprocess.run(["psql", self.url, "-A", "-t", "-q", "-c", sql], check=True, capture_output=True, text=True).stdout


def compare_tables(before, after, derived):
    """Every row of `before` is in `after` with the same values in its columns; `derived` names (table, column) a
    documented step changes, and sealed columns may have been sealed."""
    for table, rows in before.items():
        if table in VOLATILE:
            continue
        if table not in after:
            # PostgreSQL partitions clicks by time; a partition may move, its rows stay in the parent.
            check(table.startswith("clicks_"), f"table {table} is gone")
            continue
        if table.startswith("clicks_"):
            continue
        check(len(after[table]) >= len(rows), f"{table}: {len(rows)} rows before, {len(after[table])} after")
        remaining = [dict(r) for r in after[table]]
        for row in rows:
            wanted = {c: v for c, v in row.items() if (table, c) not in derived and (table, c) not in SEALED}
            match = next((r for r in remaining if all(normal(r.get(c)) == normal(v) for c, v in wanted.items())), None)
            check(match is not None, f"{table}: a row changed or went: {short(row)}")
            if match is None:
                continue
            remaining.remove(match)
            for column in row:
                if (table, column) in SEALED and row[column] != match[column]:
                    check(str(match[column]).startswith("sealed1:"), f"{table}.{column} changed without being sealed")


def normal(value):
    # PostgreSQL's row_to_json writes BIGINT as numbers and SQLite's as ints; JSON text compares as JSON.
    if isinstance(value, str) and value[:1] in "{[":
        try:
            return json.dumps(json.loads(value), sort_keys=True)
        except ValueError:
            return value
    return value


def short(row):
    return json.dumps(row, default=str)[:300]


def compare_answers(path, before, after, allowed, trail=""):
    """`after` holds every field of `before` with the same value (new fields are allowed); `allowed` lists the dotted
    paths a documented change may alter."""
    where = f"{path} {trail or '.'}"
    if trail.lstrip(".") in allowed:
        return
    if isinstance(before, dict):
        if not isinstance(after, dict):
            check(False, f"{where}: was an object, now {short(after)}")
            return
        for key, value in before.items():
            check(key in after, f"{where}: {key} is gone")
            if key in after:
                compare_answers(path, value, after[key], allowed, f"{trail}.{key}")
    elif isinstance(before, list):
        check(isinstance(after, list) and len(after) == len(before), f"{where}: {len(before)} items, now {short(after)}")
        if isinstance(after, list):
            for a, b in zip(before, after):
                compare_answers(path, a, b, allowed, f"{trail}[]")
    else:
        check(before == after, f"{where}: {short(before)} became {short(after)}")


# ---------------------------------------------------------------------------------------------------------------------
# Filling a database through a release's API


class Fill:
    """What the fill made, for the reads to name."""

    def __init__(self, server, hook_url):
        s, a = server, server.admin
        self.admin = a
        self.workspace = must(s.request("GET", "/v1/workspaces", key=a), "workspaces")["items"][0]["id"]
        self.app = must(s.request("POST", "/v1/apps", {"workspaceId": self.workspace, "name": "Shop", "teamId": "ABCDE12345",
                                                      "bundleId": "com.example.shop", "appStoreId": "1234567890", "platforms": ["ios"]},
                                  key=a), "app")["id"]
        # A second app with the same App Store id: first come, first served in 0.1.0; 0.2.0 refuses it in one workspace.
        twin = s.request("POST", "/v1/apps", {"workspaceId": self.workspace, "name": "Shop copy", "teamId": "ZZZZZ99999",
                                             "bundleId": "com.example.copy", "appStoreId": "1234567890", "platforms": ["ios"]}, key=a)
        self.twin = json_of(twin)["id"] if twin[0] == 201 else None
        must(s.request("PATCH", f"/v1/apps/{self.app}", {"attribution": {"probabilisticMinutes": 120}}, key=a), "app update")
        self.publishable = must(s.request("POST", "/v1/keys", {"kind": "publishable", "appId": self.app}, key=a), "key")["secret"]
        self.server_key = must(s.request("POST", "/v1/keys", {"kind": "server", "workspaceId": self.workspace}, key=a), "key")["secret"]
        self.domain = "links.example.com"
        must(s.request("POST", "/v1/domains", {"hostname": self.domain, "workspaceId": self.workspace}, key=a), "domain")
        # The customer's own metadata, with a utm object of theirs (0.2.0's step 0030 moved it; it must stay).
        self.link = must(s.request("POST", "/v1/links", {
            "workspaceId": self.workspace, "appId": self.app, "domain": self.domain, "path": "spring", "appPath": "/promo/spring",
            "destinations": {"web": "https://example.com/spring"}, "campaign": "spring",
            "metadata": {"sku": 42, "utm": {"source": "newsletter", "campaign": "spring24"}}}, key=a), "link")["id"]
        self.plain = must(s.request("POST", "/v1/links", {
            "workspaceId": self.workspace, "appId": self.app, "domain": self.domain, "path": "autumn",
            "destinations": {"web": "https://example.com/autumn"}}, key=a), "link")["id"]
        self.hook = must(s.request("POST", "/v1/webhooks", {"workspaceId": self.workspace, "url": hook_url,
                                                           "topics": ["install", "event", "click"]}, key=a), "webhook")
        self.surface = must(s.request("POST", f"/v1/apps/{self.app}/app-store-surfaces", {"environment": "production"}, key=a),
                            "surface")
        self.installs = []
        self.traffic(s, "first")

    def traffic(self, server, tag):
        """Clicks, an install matched to them, and its events: what a day of an app brings."""
        for _ in range(3):
            status, _, _ = server.request("GET", "/spring", headers={"Host": self.domain, "User-Agent": IPHONE})
            check(status == 302, f"{server.name}: redirect answered {status}")
        install = f"install-{tag}-{uuid.uuid4().hex[:8]}"
        match = server.request("POST", "/v1/installs/match", {"installId": install, "platform": "ios", "consent": True},
                               key=self.publishable)
        check(match[0] == 200, f"{server.name}: match answered {match[0]} {match[1][:200]!r}")
        self.installs.append(install)
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        # The app reports its install; revenue comes from the customer's backend with a server key.
        for kind, extra, key in [("INSTALL", {}, self.publishable), ("PURCHASE", {"amount": 499, "currency": "EUR"}, self.server_key)]:
            event = server.request("POST", "/v1/events", dict({"eventId": uuid.uuid4().hex, "type": kind, "installId": install,
                                                               "appId": self.app, "timestamp": now}, **extra), key=key)
            check(event[0] in (200, 201, 202), f"{server.name}: event {kind} answered {event[0]} {event[1][:200]!r}")

    def reads(self):
        """GET paths whose answers an upgrade must keep."""
        paths = ["/v1/workspaces", f"/v1/workspaces/{self.workspace}", "/v1/apps", f"/v1/apps/{self.app}",
                 "/v1/keys", "/v1/domains", "/v1/links", f"/v1/links/{self.link}", f"/v1/links/{self.plain}", "/v1/webhooks",
                 f"/v1/webhooks/{self.hook['webhook']['id']}/deliveries", f"/v1/apps/{self.app}/app-store-surfaces",
                 f"/v1/apps/{self.app}/conversion-schema/versions", "/v1/postbacks", "/v1/ad-networks", "/v1/affiliates",
                 "/v1/affiliate-programs", "/v1/users", "/v1/me", f"/v1/mobile/config/{self.app}",
                 f"/v1/reports/funnel?workspaceId={self.workspace}", f"/v1/reports/funnel?workspaceId={self.workspace}&groupBy=campaign",
                 f"/v1/reports/postbacks?workspaceId={self.workspace}", f"/v1/reports/payouts?workspaceId={self.workspace}"]
        if self.twin:
            paths.append(f"/v1/apps/{self.twin}")
        for install in self.installs:
            paths += [f"/v1/installs/{install}/attribution", f"/v1/installs/{install}/export"]
        return paths


def read_all(server, fill):
    answers = {}
    for path in fill.reads():
        status, body, headers = server.request("GET", path, key=fill.admin)
        answers[path] = (status, json.loads(body) if body and "json" in headers.get("Content-Type", "") else body)
    return answers


def probes(server, fill):
    """What a visitor and the app see of the link: the desktop redirect and the app's resolve (each is counted)."""
    status, _, headers = server.request("GET", "/spring", headers={"Host": fill.domain, "User-Agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64)"})
    resolved = server.request("POST", "/v1/resolve", {"url": f"https://{fill.domain}/spring", "platform": "ios"}, key=fill.publishable)
    return {"redirect": (status, headers.get("Location")), "resolve": (resolved[0], json_of(resolved))}


# Fields of 0.1.0's answers that change with time or with the work a server does, not with the upgrade.
ALLOWED_ANSWER_CHANGES = {
    "from", "to",  # a report's default range ends now
}
# The delivery progress the new server's dispatcher makes (it retries what was pending).
ALLOWED_DELIVERY_CHANGES = {"items[].attempts", "items[].nextAttemptAt", "items[].lastError", "items[].status"}
DELIVERY_PROGRESS = {("webhook_deliveries", c) for c in ["status", "attempts", "next_attempt_at", "lease_until", "last_status", "last_error", "delivered_at"]}


def upgrade(binary, database, work):
    print(f"upgrade from 0.1.0 on {database.url.split(':')[0]}")
    old_binary = os.path.join(RELEASES, "0.1.0", "linkrunway")
    old = Server(old_binary, database.url, work, "old")
    fill = Fill(old, "http://127.0.0.1:9/hook")
    before_probes = probes(old, fill)
    before_reads = read_all(old, fill)
    old.stop()
    before = database.tables()
    time.sleep(1)

    new = Server(binary, database.url, work, "new")
    after_reads = read_all(new, fill)
    after_probes = probes(new, fill)
    log = new.output()
    fill.traffic(new, "after")
    new.stop()
    after = database.tables()

    # Documented derivations: 0.2.0 and this version fill new columns only; nothing 0.1.0 stored changes but the
    # secrets sealed in place.
    compare_tables(before, after, derived=DELIVERY_PROGRESS)
    for path, (status, body) in before_reads.items():
        new_status, new_body = after_reads[path]
        check(new_status == status, f"{path}: {status} before, {new_status} after")
        if status == 200:
            allowed = ALLOWED_ANSWER_CHANGES | (ALLOWED_DELIVERY_CHANGES if path.endswith("/deliveries") else set())
            compare_answers(path, body, new_body, allowed=allowed)
    check(after_probes["redirect"] == before_probes["redirect"], f"the link redirects to {after_probes['redirect']}, not {before_probes['redirect']}")
    check(before_probes["resolve"][0] == 200, f"0.1.0's resolve answered {before_probes['resolve']}")
    compare_answers("resolve", before_probes["resolve"][1], after_probes["resolve"][1], allowed={"clickToken", "signedClickId"})
    resolved = after_probes["resolve"][1] or {}
    check(resolved.get("metadata") == {"sku": 42, "utm": {"source": "newsletter", "campaign": "spring24"}},
          f"resolve returns the customer's metadata: {resolved.get('metadata')}")
    # Said at start: the webhook 0.1.0 accepted and this version refuses, and the apps sharing an App Store id.
    check(fill.hook["webhook"]["id"] in log and "webhook(s) send to a URL this server refuses" in log, "the refused webhook is named at start")
    check(fill.twin is not None, "0.1.0 let two apps share an App Store id")
    check("App Store id they have not proven" in log and str(fill.twin) in log, "the apps sharing an App Store id are named at start")
    twin = after_reads[f"/v1/apps/{fill.twin}"][1]
    check(twin.get("appStoreIdRouting") == "awaiting_proof", f"the app shows its id waits for a proof: {twin.get('appStoreIdRouting')}")
    # 0.1.0 refuses the migrated database and leaves it as it was.
    refused = subprocess.run([old_binary, "serve", "--port", "0", "--database-url", database.url], capture_output=True, text=True,
                             timeout=60, env=dict(os.environ, LINKRUNWAY_SECRET_KEY_FILE=os.path.join(work, "linkrunway.key")))
    check(refused.returncode != 0, "0.1.0 refuses the migrated database")
    check(database.tables().keys() == after.keys(), "0.1.0's refusal changed nothing")


# ---------------------------------------------------------------------------------------------------------------------
# Rolling upgrade on PostgreSQL


class HookReceiver(http.server.BaseHTTPRequestHandler):
    received = []
    lock = threading.Lock()

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with HookReceiver.lock:
            HookReceiver.received.append((self.headers.get("LinkRunway-Signature", ""), body))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


def signature_valid(secret, header, body):
    parts = dict(p.split("=", 1) for p in header.split(",") if "=" in p)
    if "t" not in parts or "v1" not in parts:
        return False
    mac = hmac.new(secret.encode(), parts["t"].encode() + b"." + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(mac, parts["v1"])


def every_route(server, fill, label):
    """Every route of the server's OpenAPI document: each GET with the fill's ids where it can name them (another id
    otherwise), and each write with an empty JSON body and ids nothing has, so it is routed, authorised and refused
    without changing what the fill made. None may answer 5xx."""
    document = json_of(server.request("GET", "/openapi.json"))
    names = {"workspaceId": fill.workspace, "appId": fill.app, "linkId": fill.link, "webhookId": fill.hook["webhook"]["id"],
             "installId": fill.installs[0], "surfaceId": fill.surface.get("surface", {}).get("id", "none")}
    requests = {("GET", path) for path in fill.reads()}
    for path, operations in (document or {}).get("paths", {}).items():
        for method in operations:
            if method not in ("get", "post", "put", "patch", "delete"):
                continue
            known = names if method == "get" else {}
            requests.add((method.upper(), re.sub(r"\{(\w+)\}", lambda m: known.get(m.group(1), "zz_missing"), path)))
    errors = []
    for method, path in sorted(requests):
        status, body, _ = server.request(method, path, None if method == "GET" else {}, key=fill.admin)
        if status >= 500:
            errors.append(f"{method} {path}: {status} {body[:200]!r}")
    check(not errors, f"{label}: 5xx on {errors}")
    return len(requests)


def writes(server, fill, tag):
    """The management and client writes beside the traffic: each must succeed on either server."""
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    steps = [
        ("POST", "/v1/links", {"workspaceId": fill.workspace, "appId": fill.app, "domain": fill.domain, "path": f"r-{tag}",
                               "destinations": {"web": "https://example.com/r"}}, fill.admin, (201,)),
        ("PATCH", f"/v1/links/{fill.plain}", {"campaign": f"autumn-{tag}"}, fill.admin, (200,)),
        ("PATCH", f"/v1/apps/{fill.app}", {"attribution": {"clickWindowDays": 7}}, fill.admin, (200,)),
        ("POST", "/v1/resolve", {"url": f"https://{fill.domain}/spring", "platform": "ios", "installId": fill.installs[0]},
         fill.publishable, (200,)),
        ("POST", "/v1/events/batch", {"events": [{"eventId": uuid.uuid4().hex, "type": "CUSTOM", "name": "level_up",
                                                  "installId": fill.installs[0], "timestamp": now}]}, fill.publishable, (200, 201, 202)),
        ("POST", "/v1/simulate/clicks", {"url": f"https://{fill.domain}/spring", "ip": "198.51.100.7"}, fill.admin, (200, 201)),
    ]
    for method, path, body, key, statuses in steps:
        status, answer, _ = server.request(method, path, body, key=key)
        check(status in statuses, f"{server.name}: {method} {path} answered {status} {answer[:200]!r}")
    key = server.request("POST", "/v1/keys", {"kind": "server", "workspaceId": fill.workspace}, key=fill.admin)
    check(key[0] == 201, f"{server.name}: key create answered {key[0]}")
    if key[0] == 201:
        revoked = server.request("POST", f"/v1/keys/{json_of(key)['key']['id']}/revoke", key=fill.admin)
        check(revoked[0] == 200, f"{server.name}: key revoke answered {revoked[0]}")


def rolling(binary, base_url, work):
    print("rolling upgrade from 0.2.0 on postgres")
    receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), HookReceiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    hook_url = f"http://127.0.0.1:{receiver.server_address[1]}/hook"
    database = Database.postgres(base_url, "rolling_upgrade")
    private = {"LINKRUNWAY_OUTBOUND_PRIVATE_TARGETS": "on"}
    old = Server(os.path.join(RELEASES, "0.2.0", "linkrunway"), database.url, work, "rolling-old", env=private)
    fill = Fill(old, hook_url)
    secret = fill.hook["secret"]

    migrated = subprocess.run([binary, "migrate", "--database-url", database.url], capture_output=True, text=True, timeout=120)
    check(migrated.returncode == 0, f"migrate failed: {migrated.stdout}{migrated.stderr}")
    fill.traffic(old, "old-after-migrate")
    route_count = every_route(old, fill, "0.2.0 after migrate")

    new = Server(binary, database.url, work, "rolling-new", env=private)
    check("waits until no server of an older version runs" in new.output(), "today's server does not seal while 0.2.0 runs")
    for round_number in range(3):
        for server in (old, new):
            fill.traffic(server, f"{server.name}-{round_number}")
            writes(server, fill, f"{server.name}-{round_number}")
    every_route(old, fill, "0.2.0 beside today's server")
    every_route(new, fill, "today's server beside 0.2.0")
    old.stop()
    fill.traffic(new, "after-old-stopped")
    every_route(new, fill, "today's server alone")

    deadline = time.time() + 90
    expected = 0
    while time.time() < deadline:
        rows = database.psql("SELECT COUNT(*) FROM webhook_deliveries WHERE delivered_at IS NULL").strip()
        expected = int(database.psql("SELECT COUNT(*) FROM webhook_deliveries").strip() or 0)
        if rows == "0":
            break
        time.sleep(1)
    new.stop()
    with HookReceiver.lock:
        received = list(HookReceiver.received)
    check(len(received) >= expected > 0, f"{len(received)} deliveries received of {expected}")
    bad = [h for h, body in received if not signature_valid(secret, h, body)]
    check(not bad, f"{len(bad)} of {len(received)} webhook signatures do not verify")
    print(f"  {route_count} route requests, {len(received)} webhook deliveries verified")
    receiver.shutdown()


def main():
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/linkrunway")
    with tempfile.TemporaryDirectory() as work:
        os.makedirs(os.path.join(work, "sqlite"))
        upgrade(binary, Database.sqlite(os.path.join(work, "sqlite", "up.db")), os.path.join(work, "sqlite"))
        postgres = os.environ.get("LINKRUNWAY_TEST_POSTGRES_URL")
        if postgres:
            os.makedirs(os.path.join(work, "postgres"))
            upgrade(binary, Database.postgres(postgres, "upgrade_from_010"), os.path.join(work, "postgres"))
            os.makedirs(os.path.join(work, "rolling"))
            rolling(binary, postgres, os.path.join(work, "rolling"))
        else:
            print("LINKRUNWAY_TEST_POSTGRES_URL is not set: the PostgreSQL upgrade and the rolling upgrade are skipped")
    if failures:
        print(f"upgrade tests: {len(failures)} failure(s)")
        sys.exit(1)
    print("upgrade tests: passed")


if __name__ == "__main__":
    main()
