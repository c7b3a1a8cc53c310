#!/usr/bin/env python3
"""Upgrades as a customer meets them, with the released binaries scripts/build-releases.sh builds.

upgrade: for each backend (SQLite; PostgreSQL when LINKRUNWAY_TEST_POSTGRES_URL is set), a database filled through the
API of release 0.1.0 (every table it has that its API can fill: links, installs, affiliates and their commissions from
signed App Store notifications, postbacks, impressions, claims, console sessions...) is served by today's binary. Every
row of every table 0.1.0 made is still there with the values it had, stored text compared as text (sealing secrets and
the documented derivations apart), a broad set of API reads answers what 0.1.0 answered (new fields allowed), the link's
redirect goes where it went, today's start names what it now does differently, and 0.1.0 then refuses the database
without changing a row of it.

chain: the same fill, served by 0.2.0 (whose step 0030 moved metadata.utm into the links' new UTM fields), then by
today's binary: the customer's metadata is back as 0.1.0 stored it, resolve returns it and the redirect adds no utm_.

rolling (PostgreSQL): a 0.2.0 server keeps serving while today's `linkrunway migrate` runs and a server of today joins
it on the same database; traffic on every route (writes across the API for real, the rest refused) goes to both, with
no 5xx and no error in either log, and every webhook delivery either server sends carries a valid signature.

Apple's signed test data comes from ../shared/vectors (LINKRUNWAY_VECTORS names another folder); without it the
postbacks Apple signs are not filled, and the run says so. App Store notifications are signed by a test CA made here
with the openssl CLI, which both servers trust through LINKRUNWAY_APP_STORE_ROOT.

Usage: scripts/upgrade_test.py <today's linkrunway binary>
"""
import base64
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
import urllib.parse
import urllib.request
import uuid

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
RELEASES = os.path.join(ROOT, ".build", "releases")
VECTORS = os.path.normpath(os.environ.get("LINKRUNWAY_VECTORS") or os.path.join(ROOT, "..", "shared", "vectors"))
IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1"
DESKTOP = "Mozilla/5.0 (Windows NT 10.0; Win64; x64)"
# Columns whose values a newer server may rewrite: secrets it seals in place (docs/deployment.md, "Secrets at rest").
SEALED = {("webhooks", "secret"), ("instance_meta", "value"), ("address_keys", "secret"), ("ad_networks", "private_key")}
# Tables of process state, not customer data.
VOLATILE = {"server_instances", "schema_migrations"}
# Tables a documented step dropped, each with the check that a row of it lives on in the tables after.
FOLDED = {
    # 0071, on SQLite: an event id is looked up in the events' own key, so each id needs its event.
    "event_ids": lambda row, after: any(event["app_id"] == row["app_id"] and event["event_id"] == row["event_id"]
                                        for event in after.get("events", [])),
}
failures = []
skipped = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("  FAIL: " + message)


def skip(message):
    """A part of the run that cannot be done here, said once."""
    if message not in skipped:
        skipped.append(message)
        print("  skipped: " + message)


def vector(*parts):
    """The path of a file of Apple's test data, or None when ../shared/vectors lacks it."""
    path = os.path.join(VECTORS, *parts)
    return path if os.path.exists(path) else None


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
        """`body` is sent as JSON, or as it is when it is bytes (with the Content-Type `headers` give)."""
        data = None if body is None else body if isinstance(body, bytes) else json.dumps(body).encode()
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

    def problems(self):
        """The log's error-level lines and the requests it answered 5xx."""
        found = []
        for line in self.output().splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if not isinstance(entry, dict):
                continue
            if entry.get("level") == "error" or (entry.get("msg") == "request" and int(entry.get("status") or 0) >= 500):
                found.append(line[:300])
        return found


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


def expect(answer, what, statuses=(200, 201)):
    """Like must, but a refusal is a failure of the run, not its end; the answer's JSON, or None."""
    check(answer[0] in statuses, f"{what} answered {answer[0]} {answer[1][:300]!r}")
    return json_of(answer) if answer[0] in statuses else None


# ---------------------------------------------------------------------------------------------------------------------
# Apple stand-ins: an App Store signing chain of our own, and AdServices


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def raw_signature(der):
    """An ECDSA signature in DER (SEQUENCE of r and s) as JWS wants it: r || s, 32 bytes each."""
    assert der[0] == 0x30
    offset = 3 if der[1] & 0x80 else 2
    numbers = []
    for _ in range(2):
        assert der[offset] == 0x02
        length = der[offset + 1]
        numbers.append(der[offset + 2:offset + 2 + length].lstrip(b"\0").rjust(32, b"\0"))
        offset += 2 + length
    return numbers[0] + numbers[1]


CA_CONFIG = """
[req]
distinguished_name = dn
prompt = no
[dn]
CN = unused
[root]
basicConstraints = critical, CA:true
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[intermediate]
basicConstraints = critical, CA:true, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
1.2.840.113635.100.6.2.1 = DER:0500
[leaf]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature
authorityKeyIdentifier = keyid
1.2.840.113635.100.6.11.1 = DER:0500
"""


class AppStoreSigner:
    """A P-256 root, an intermediate with Apple's WWDR marker OID and a leaf with its receipt-signing OID, made with
    the openssl CLI; notifications and transactions signed with the leaf as Apple signs them (ES256, x5c of three)."""

    def __init__(self, work):
        folder = os.path.join(work, "app-store-ca")
        os.makedirs(folder)
        self.folder = folder
        with open(os.path.join(folder, "ca.cnf"), "w") as f:
            f.write(CA_CONFIG)
        for name in ("root", "intermediate", "leaf"):
            self.openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", f"{name}.key")
        self.openssl("req", "-new", "-x509", "-key", "root.key", "-subj", "/CN=LinkRunway Upgrade Test Root", "-days", "3650",
                     "-config", "ca.cnf", "-extensions", "root", "-out", "root.pem")
        for name, issuer, serial in (("intermediate", "root", "2"), ("leaf", "intermediate", "3")):
            self.openssl("req", "-new", "-key", f"{name}.key", "-subj", f"/CN=LinkRunway Upgrade Test {name}", "-config", "ca.cnf",
                         "-out", f"{name}.csr")
            self.openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{issuer}.pem", "-CAkey", f"{issuer}.key", "-set_serial", serial,
                         "-days", "3650", "-extfile", "ca.cnf", "-extensions", name, "-out", f"{name}.pem")
        self.root = os.path.join(folder, "root.pem")
        self.x5c = [base64.b64encode(self.openssl("x509", "-in", f"{name}.pem", "-outform", "DER")).decode()
                    for name in ("leaf", "intermediate", "root")]
        # The leaf's notBefore is this second; what it signs is dated after it.
        time.sleep(1)

    def openssl(self, *args, data=None):
        return subprocess.run(["openssl", *args], cwd=self.folder, input=data, capture_output=True, check=True).stdout

    def sign(self, payload):
        header = b64url(json.dumps({"alg": "ES256", "x5c": self.x5c}).encode())
        text = header + "." + b64url(json.dumps(payload).encode())
        der = self.openssl("dgst", "-sha256", "-sign", "leaf.key", data=text.encode())
        return text + "." + b64url(raw_signature(der))

    def transaction(self, transaction_id, original, bundle_id, token, price, currency="USD", kind="Auto-Renewable Subscription"):
        """A signed transaction; `price` in milliunits, `token` the bind's appAccountToken (Apple writes it upper case)."""
        now = int(time.time() * 1000)
        payload = {"transactionId": transaction_id, "originalTransactionId": original, "bundleId": bundle_id,
                   "productId": "premium.monthly", "purchaseDate": now, "type": kind, "environment": "Production",
                   "price": price, "currency": currency, "signedDate": now}
        if token:
            payload["appAccountToken"] = token.upper()
        return self.sign(payload)

    def notification(self, kind, bundle_id, app_apple_id, transaction=None):
        """A notification's body as Apple posts it: {"signedPayload": JWS}."""
        data = {"appAppleId": app_apple_id, "bundleId": bundle_id, "environment": "Production"}
        if transaction:
            data["signedTransactionInfo"] = transaction
        payload = {"notificationType": kind, "notificationUUID": str(uuid.uuid4()), "signedDate": int(time.time() * 1000),
                   "version": "2.0", "data": data}
        return {"signedPayload": self.sign(payload)}


# Apple's documented answer for a tap on a search ad (AdServices answers are not signed).
ADSERVICES_ANSWER = {"attribution": True, "orgId": 40669820, "campaignId": 542370539, "conversionType": "Download",
                     "clickDate": "2024-10-08T17:17Z", "claimType": "Click", "adGroupId": 542317095, "countryOrRegion": "US",
                     "keywordId": 87675432, "adId": 542317136}


class AdServices(http.server.BaseHTTPRequestHandler):
    """Apple's AdServices attribution API (POST /api/v1/ with the token as text) for LINKRUNWAY_APPLE_ADS_URL."""

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        body = json.dumps(ADSERVICES_ANSWER).encode()
        self.send_response(200 if self.path.rstrip("/") == "/api/v1" else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def serve_in_background(handler):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


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

    @property
    def kind(self):
        return self.url.split(":")[0]

    def tables(self):
        """Every table's rows, as lists of {column: value}, keyed by table name. Stored text stays text (PostgreSQL's
        row_to_json gives json and jsonb columns as JSON values, and BIGINT as numbers)."""
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

    def value(self, sql):
        """One value of one row."""
        if self.url.startswith("sqlite:"):
            db = sqlite3.connect(self.url[len("sqlite:"):])
            row = db.execute(sql).fetchone()
            db.close()
            return row[0] if row else None
        text = self.psql(sql)
        return text[:-1] if text.endswith("\n") else text


def same(before, after):
    """Stored values are equal as stored: text as text, never re-parsed. A json or jsonb column, which row_to_json
    gives as a JSON value, compares as one (also with the text it may once have been)."""
    if before == after and type(before) is type(after):
        return True
    if isinstance(before, bool) or isinstance(after, bool):
        return False
    if isinstance(before, (int, float)) and isinstance(after, (int, float)):
        return before == after
    structured = (dict, list)
    if isinstance(after, structured) and isinstance(before, str):
        before, after = after, before
    if isinstance(before, structured) and isinstance(after, str):
        try:
            return json.loads(after) == before
        except ValueError:
            return False
    return False


def compare_tables(before, after, derived, label=""):
    """Every row of `before` is in `after` with the same values in its columns; `derived` names (table, column) a
    documented step changes, and sealed columns may have been sealed. A row that is not found exactly is reported
    column by column against the row of `after` most like it."""
    for table, rows in before.items():
        if table in VOLATILE:
            continue
        if table not in after and table in FOLDED:
            for row in rows:
                check(FOLDED[table](row, after), f"{label}{table}: a row went with its table and lives on nowhere: {short(row)}")
            continue
        if table not in after:
            # PostgreSQL partitions clicks by time; a partition may move, its rows stay in the parent.
            check(table.startswith("clicks_"), f"{label}table {table} is gone")
            continue
        if table.startswith("clicks_"):
            continue
        check(len(after[table]) >= len(rows), f"{label}{table}: {len(rows)} rows before, {len(after[table])} after")
        remaining = [dict(r) for r in after[table]]
        for row in rows:
            wanted = {c: v for c, v in row.items() if (table, c) not in derived and (table, c) not in SEALED}
            match = next((r for r in remaining if all(same(v, r.get(c)) for c, v in wanted.items())), None)
            if match is None:
                nearest = max(remaining, key=lambda r: sum(same(v, r.get(c)) for c, v in wanted.items()), default=None)
                differing = [c for c, v in wanted.items() if nearest is None or not same(v, nearest.get(c))]
                if nearest is None or len(differing) > max(2, len(wanted) // 3):
                    check(False, f"{label}{table}: a row went: {short(row)}")
                    continue
                for column in differing:
                    check(False, f"{label}{table}.{column} changed: {short(row[column])} became {short(nearest.get(column))} "
                                 f"(row {short({c: row[c] for c in list(row)[:2]})})")
                match = nearest
            remaining.remove(match)
            for column in row:
                if (table, column) in SEALED and row[column] != match[column]:
                    check(str(match[column]).startswith("sealed1:"), f"{label}{table}.{column} changed without being sealed")


def table_changes(before, after):
    """The tables whose rows (in any order) are not exactly those of `before`."""
    def rows(table):
        return sorted(json.dumps(r, sort_keys=True, default=str) for r in table)
    return sorted(name for name in set(before) | set(after) if rows(before.get(name, [])) != rows(after.get(name, [])))


def short(value):
    return json.dumps(value, default=str)[:300]


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
        check(before == after or documented_change(before, after), f"{where}: {short(before)} became {short(after)}")


def documented_change(before, after):
    """A change of an answer's value the docs name: a link on the local domain localhost is now given as http with
    the server's port (docs/api-reference.md, Link.url)."""
    return (isinstance(before, str) and isinstance(after, str) and before.startswith("https://localhost/")
            and re.fullmatch(r"http://localhost:\d+/" + re.escape(before[len("https://localhost/"):]), after) is not None)


# ---------------------------------------------------------------------------------------------------------------------
# Filling a database through a release's API


# The customer's own link metadata, each with a utm object of theirs beside other keys (0.2.0's step 0030 moved its text
# values out; they must stay as 0.1.0 stored them).
SPRING_METADATA = {"sku": 42, "utm": {"source": "newsletter", "campaign": "spring24"}}
SUMMER_METADATA = {"utm": {"campaign": "summer24", "source": "partner", "id": 7}, "tier": "gold"}


class Fill:
    """What the fill made, for the reads to name."""

    def __init__(self, server, hook_url):
        s, a = server, server.admin
        self.admin = a
        self.extra_reads = []
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
        self.link = must(s.request("POST", "/v1/links", {
            "workspaceId": self.workspace, "appId": self.app, "domain": self.domain, "path": "spring", "appPath": "/promo/spring",
            "destinations": {"web": "https://example.com/spring"}, "campaign": "spring", "metadata": SPRING_METADATA}, key=a), "link")["id"]
        self.summer = must(s.request("POST", "/v1/links", {
            "workspaceId": self.workspace, "appId": self.app, "domain": self.domain, "path": "summer",
            "destinations": {"web": "https://example.com/summer?ref=home"}, "metadata": SUMMER_METADATA}, key=a), "link")["id"]
        self.plain = must(s.request("POST", "/v1/links", {
            "workspaceId": self.workspace, "appId": self.app, "domain": self.domain, "path": "autumn",
            "destinations": {"web": "https://example.com/autumn"}}, key=a), "link")["id"]
        self.hook = must(s.request("POST", "/v1/webhooks", {"workspaceId": self.workspace, "url": hook_url,
                                                           "topics": ["install", "event", "click"]}, key=a), "webhook")
        self.surface = must(s.request("POST", f"/v1/apps/{self.app}/app-store-surfaces", {"environment": "production"}, key=a),
                            "surface")
        self.installs = []
        self.traffic(s, "first")

    def broad(self, s, signer):
        """The rest of what 0.1.0 stores, each through its own API: console users and a session, affiliates with their
        programs, codes and links, binds by click and by code, App Store notifications that accrue commissions (and
        claw one back) on the ledger, a payout, a second app with postback settings, a conversion schema and App
        Attest, an ad network with signed impressions, Apple's postbacks, an Apple Ads claim, referral codes, a share
        and idempotent writes.

        Not filled: attest_keys. Registering a key needs an attestation by a device, chaining to Apple's App
        Attestation root (0.1.0 checks its fingerprint) and valid now; the real ones in ../shared/vectors expired in
        2025 and 0.1.0 checks them at its clock."""
        a, ws = self.admin, self.workspace

        # A console user, signed in through the console's form (console_users, console_sessions).
        password = "correct horse battery staple"
        self.user = must(s.request("POST", "/v1/users", {"workspaceId": ws, "email": "ops@example.com", "password": password}, key=a),
                         "user")
        check(console_sign_in(s, "ops@example.com", password), f"{s.name}: the console user could not sign in")

        # An affiliate program of the app, an affiliate, their code and their link (affiliate_*).
        self.program = must(s.request("POST", "/v1/affiliate-programs", {
            "appId": self.app, "name": "Partners", "commission": {"kind": "percent", "basisPoints": 3000, "duration": "lifetime"},
            "holdDays": 0, "offerCode": "SPRING"}, key=a), "program")["id"]
        self.affiliate = must(s.request("POST", "/v1/affiliates", {"workspaceId": ws, "name": "Ann", "externalId": "ann-1"}, key=a),
                              "affiliate")["id"]
        must(s.request("POST", f"/v1/affiliates/{self.affiliate}/codes", {"programId": self.program, "code": "ANN10"}, key=a), "code")
        affiliate_link = must(s.request("POST", f"/v1/affiliates/{self.affiliate}/links", {"programId": self.program, "path": "ann"},
                                        key=a), "affiliate link")
        self.affiliate_link = affiliate_link["id"]
        # Binds (app_account_tokens): the click on the affiliate link the app resolved, and the code a customer typed.
        url = urllib.parse.urlsplit(affiliate_link["url"])
        clicked = s.request("GET", url.path, headers={"Host": url.hostname, "User-Agent": IPHONE})
        check(clicked[0] in (200, 302), f"{s.name}: the affiliate link answered {clicked[0]}")
        resolved = must(s.request("POST", "/v1/resolve", {"url": affiliate_link["url"], "platform": "ios"}, key=self.publishable),
                        "affiliate resolve")
        by_click = must(s.request("POST", "/v1/app-store/bind", {"signedClickId": resolved.get("signedClickId"),
                                                                 "installId": self.installs[0]}, key=self.publishable), "bind by click")
        by_code = must(s.request("POST", "/v1/app-store/bind", {"refCode": "ann10"}, key=self.publishable), "bind by code")

        # App Store notifications on the production surface (app_store_notifications): a subscription bought through
        # the click, renewed, the renewal refunded, a one-time purchase through the code and one nobody referred.
        path = f"/v1/app-store/notifications/{self.surface['surface']['id']}"
        bundle, apple_id = "com.example.shop", 1234567890
        notifications = [
            ("SUBSCRIBED", signer.transaction("2000000001", "2000000001", bundle, by_click["appAccountToken"], 9990), "ok"),
            ("DID_RENEW", signer.transaction("2000000002", "2000000001", bundle, by_click["appAccountToken"], 9990), "ok"),
            ("REFUND", signer.transaction("2000000002", "2000000001", bundle, by_click["appAccountToken"], 9990), "ok"),
            ("ONE_TIME_CHARGE", signer.transaction("2000000003", "2000000003", bundle, by_code["appAccountToken"], 4990, "EUR",
                                                   kind="Non-Consumable"), "ok"),
            ("SUBSCRIBED", signer.transaction("2000000004", "2000000004", bundle, None, 9990), "unattributed"),
        ]
        for kind, transaction, status in notifications:
            answer = s.request("POST", path, signer.notification(kind, bundle, apple_id, transaction))
            result = json_of(answer) or {}
            check(answer[0] == 200 and result.get("status") == status,
                  f"{s.name}: notification {kind} answered {answer[0]} {answer[1][:300]!r}, not {status}")
        # The commissions' hold is over at once: the balance releases them, a payout pays the dollars (ledger_*).
        balance = must(s.request("GET", f"/v1/affiliates/{self.affiliate}/balance", key=a), "balance")
        check(any(b.get("currency") == "USD" and b.get("payable") for b in balance.get("items", balance.get("balances", []))),
              f"{s.name}: the affiliate earned nothing payable: {short(balance)}")
        must(s.request("POST", f"/v1/affiliates/{self.affiliate}/payouts", {"currency": "USD", "reference": "march"}, key=a,
                       headers={"Idempotency-Key": "payout-march"}), "payout")

        # A second app, for Apple's example postbacks (App Store id 525463029): its postback settings forward them,
        # name a campaign and accept development keys; its conversion schema decodes them; App Attest is optional.
        self.game = must(s.request("POST", "/v1/apps", {"workspaceId": ws, "name": "Game", "teamId": "ABCDE12345",
                                                       "bundleId": "com.example.game", "appStoreId": "525463029", "platforms": ["ios"]},
                                   key=a, headers={"Idempotency-Key": f"game-{uuid.uuid4().hex}"}), "game")["id"]
        must(s.request("PATCH", f"/v1/apps/{self.game}", {
            "postbacks": {"acceptDevelopment": True, "forwardUrls": ["http://127.0.0.1:9/postbacks"],
                          "campaigns": [{"adNetworkId": "com.example", "sourceIdentifier": "5239", "name": "Launch"}]},
            "attestation": {"policy": "optional", "environments": ["development", "production"]}}, key=a), "game settings")
        must(s.request("PUT", f"/v1/apps/{self.game}/conversion-schema", {
            "rules": [{"type": "INSTALL", "fine": 1, "coarse": "low"},
                      {"type": "PURCHASE", "minAmount": 100, "fine": 63, "coarse": "high", "lockWindow": True}],
            "laterWindows": [{"window": 2, "rules": [{"type": "PURCHASE", "coarse": "high"}]}]}, key=a), "conversion schema")
        game_key = must(s.request("POST", "/v1/keys", {"kind": "publishable", "appId": self.game}, key=a), "game key")["secret"]
        must(s.request("POST", "/v1/attest/apple/challenge", key=game_key), "attest challenge")

        # An ad network whose key signs impressions, one of each format, recorded for view-through (impressions).
        network = must(s.request("POST", "/v1/ad-networks", {"workspaceId": ws, "adNetworkId": "com.example"}, key=a), "ad network")
        network_id = network.get("id") or network.get("adNetwork", {}).get("id")
        for kind in ("skadnetwork-4.0", "adattributionkit"):
            must(s.request("POST", f"/v1/ad-networks/{network_id}/impressions", {
                "format": kind, "sourceIdentifier": 5239, "advertisedItemId": 525463029, "publisherItemId": 0, "fidelityType": 0,
                "record": {"appId": self.game, "ip": "198.51.100.9", "campaign": "launch"}}, key=a), f"{kind} impression")
        # An impression the customer's backend reports, sent twice with one Idempotency-Key (idempotency_keys).
        impression = {"appId": self.app, "ip": "198.51.100.8", "network": "meta", "campaign": "spring"}
        first = s.request("POST", "/v1/impressions", impression, key=a, headers={"Idempotency-Key": "impression-1"})
        again = s.request("POST", "/v1/impressions", impression, key=a, headers={"Idempotency-Key": "impression-1"})
        check(first[0] == 201 and again[0] == 201 and again[1] == first[1], f"{s.name}: the idempotent retry answered {again[0]}")

        # Apple's example postbacks (postbacks, postback_keys, postback_forwards): SKAdNetwork 4.0 for the game,
        # AdAttributionKit from a development key, and one whose signature fails (stored as invalid).
        if vector("skadnetwork", "postbacks", "com.example-4.0.json"):
            for name in ("com.example-4.0.json", "com.example-2.2.json", "invalid__bad-signature.json"):
                with open(vector("skadnetwork", "postbacks", name), "rb") as f:
                    body = f.read()
                answer = must(s.request("POST", "/.well-known/skadnetwork/report-attribution/", body, headers={"Host": self.domain}),
                              f"postback {name}")
                check(answer.get("status") == ("invalid" if name.startswith("invalid") else "valid"),
                      f"{s.name}: postback {name} was {short(answer)}")
        else:
            skip(f"{VECTORS}/skadnetwork is absent: no SKAdNetwork postbacks are filled")
        if vector("adattributionkit", "postback-dev-settings-valid.json"):
            # Apple's example is for the App Store id 10738027756, from a development key: an app that accepts them.
            arcade = must(s.request("POST", "/v1/apps", {"workspaceId": ws, "name": "Arcade", "teamId": "ABCDE12345",
                                                        "bundleId": "com.example.arcade", "appStoreId": "10738027756",
                                                        "platforms": ["ios"]}, key=a), "arcade")["id"]
            must(s.request("PATCH", f"/v1/apps/{arcade}", {"postbacks": {"acceptDevelopment": True, "forwardUrls": [], "campaigns": []}},
                           key=a), "arcade settings")
            with open(vector("adattributionkit", "postback-dev-settings-valid.json")) as f:
                stanza = {"jws-string": json.load(f)["jws-string"]}
            answer = must(s.request("POST", "/.well-known/appattribution/report-attribution/", stanza), "AdAttributionKit postback")
            check(answer.get("status") == "valid", f"{s.name}: the AdAttributionKit postback was {short(answer)}")
        else:
            skip(f"{VECTORS}/adattributionkit is absent: no AdAttributionKit postback is filled")

        # The first install's Apple Ads token, answered by AdServices (apple_ads_claims).
        claim = must(s.request("POST", "/v1/claims/apple-ads", {"installId": self.installs[0], "token": "dGFwLXRva2Vu"},
                               key=self.publishable), "Apple Ads claim")
        check(claim.get("status") == "attributed", f"{s.name}: the Apple Ads claim is {short(claim)}")
        # Referral codes of an install and of a user, and a share (referral_codes, a share link).
        self.referral = must(s.request("POST", "/v1/referral-codes", {"installId": self.installs[0]}, key=self.publishable),
                             "referral code")["code"]
        must(s.request("POST", "/v1/referral-codes", {"userId": "user-42"}, key=self.publishable), "user referral code")
        must(s.request("POST", "/v1/shares", {"installId": self.installs[0], "appPath": "/item/7", "metadata": {"from": "user-42"}},
                       key=self.publishable, headers={"Idempotency-Key": "share-1"}), "share")

        self.extra_reads = [f"/v1/affiliates/{self.affiliate}/balance", f"/v1/affiliates/{self.affiliate}/ledger",
                            f"/v1/apps/{self.game}", f"/v1/apps/{self.game}/conversion-schema", f"/v1/mobile/config/{self.game}",
                            f"/v1/referral-codes/{self.referral}", f"/v1/postbacks?workspaceId={ws}"]

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
                 "/v1/keys", "/v1/domains", "/v1/links", f"/v1/links/{self.link}", f"/v1/links/{self.plain}",
                 f"/v1/links/{self.summer}", "/v1/webhooks",
                 f"/v1/webhooks/{self.hook['webhook']['id']}/deliveries", f"/v1/apps/{self.app}/app-store-surfaces",
                 f"/v1/apps/{self.app}/conversion-schema/versions", "/v1/postbacks", "/v1/ad-networks", "/v1/affiliates",
                 "/v1/affiliate-programs", "/v1/users", "/v1/me", f"/v1/mobile/config/{self.app}",
                 f"/v1/reports/funnel?workspaceId={self.workspace}", f"/v1/reports/funnel?workspaceId={self.workspace}&groupBy=campaign",
                 f"/v1/reports/postbacks?workspaceId={self.workspace}", f"/v1/reports/payouts?workspaceId={self.workspace}"]
        if self.twin:
            paths.append(f"/v1/apps/{self.twin}")
        for install in self.installs:
            paths += [f"/v1/installs/{install}/attribution", f"/v1/installs/{install}/export"]
        return paths + self.extra_reads


def console_sign_in(server, email, password):
    """Signs in through the console's form as a browser would (a console session); whether it was let in."""
    token = "upgrade-" + uuid.uuid4().hex
    form = urllib.parse.urlencode({"login_csrf": token, "next": "/console", "method": "password", "email": email,
                                   "password": password}).encode()
    status, _, headers = server.request("POST", "/console/login", form, headers={
        "Content-Type": "application/x-www-form-urlencoded", "Cookie": f"lr_login={token}", "Origin": server.base})
    return status in (302, 303) and headers.get("Location", "").endswith("/console")


def read_all(server, fill):
    answers = {}
    for path in fill.reads():
        status, body, headers = server.request("GET", path, key=fill.admin)
        answers[path] = (status, json.loads(body) if body and "json" in headers.get("Content-Type", "") else body)
    return answers


def probes(server, fill):
    """What a visitor and the app see of the customer's links: the desktop redirects and the app's resolves (each is
    counted)."""
    seen = {}
    for path in ("spring", "summer"):
        status, _, headers = server.request("GET", "/" + path, headers={"Host": fill.domain, "User-Agent": DESKTOP})
        resolved = server.request("POST", "/v1/resolve", {"url": f"https://{fill.domain}/{path}", "platform": "ios"}, key=fill.publishable)
        seen[path] = {"redirect": (status, headers.get("Location")), "resolve": (resolved[0], json_of(resolved))}
    return seen


# Fields of 0.1.0's answers that change with time or with the work a server does, not with the upgrade.
ALLOWED_ANSWER_CHANGES = {
    "from", "to",  # a report's default range ends now
}
# The delivery progress the new server's dispatcher makes (it retries what was pending).
ALLOWED_DELIVERY_CHANGES = {"items[].attempts", "items[].nextAttemptAt", "items[].lastError", "items[].status"}
# The same progress in the stored queues: webhook deliveries and the postbacks forwarded to partners.
PROGRESS = ["status", "attempts", "next_attempt_at", "lease_until", "last_status", "last_error", "delivered_at"]
DELIVERY_PROGRESS = {(table, c) for table in ("webhook_deliveries", "postback_forwards") for c in PROGRESS}
# The postback report's counts of 0.1.0, which counted development postbacks with the others.
POSTBACK_COUNTS = ["postbacks", "reengagements", "withheld", "installs", "invalid", "duplicates"]


def upgrade(binary, database, work, env, signer, through=None):
    """0.1.0 fills `database` through its API; the release `through` (if any) serves it next, then today's binary."""
    print(f"upgrade from 0.1.0{' through ' + through if through else ''} on {database.kind}")
    label = f"[{database.kind}{' via ' + through if through else ''}] "
    old_binary = os.path.join(RELEASES, "0.1.0", "linkrunway")
    old = Server(old_binary, database.url, work, "old", env=env)
    fill = Fill(old, "http://127.0.0.1:9/hook")
    fill.broad(old, signer)
    before_probes = probes(old, fill)
    before_reads = read_all(old, fill)
    old.stop()
    before = database.tables()
    partitions = ("clicks_", "events_", "impressions_", "postbacks_")
    empty = sorted(name for name, rows in before.items() if not rows and name not in VOLATILE and not name.startswith(partitions))
    print(f"  0.1.0 filled {sum(1 for rows in before.values() if rows)} tables; empty: {', '.join(empty) or 'none'}")
    time.sleep(1)

    if through:
        middle = Server(os.path.join(RELEASES, through, "linkrunway"), database.url, work, "through-" + through, env=env)
        middle.stop()
        # The step this chain is about: 0.2.0 took the customer's metadata.utm into the links' new UTM fields.
        moved = database.value(f"SELECT utm_source FROM links WHERE id = '{fill.link}'")
        check(moved == "newsletter", f"{label}0.2.0's step 0030 did not move metadata.utm (utm_source {moved!r}): the chain tests nothing")

    new = Server(binary, database.url, work, "new", env=env)
    after_reads = read_all(new, fill)
    after_probes = probes(new, fill)
    postback_report = f"/v1/reports/postbacks?workspaceId={fill.workspace}"
    sandbox_report = json_of(new.request("GET", postback_report + "&environment=development", key=fill.admin))
    log = new.output()
    fill.traffic(new, "after")
    new.stop()
    after = database.tables()

    # Documented derivations: 0.2.0 and this version fill new columns only; nothing 0.1.0 stored changes but the
    # secrets sealed in place and the progress of queued deliveries.
    compare_tables(before, after, derived=DELIVERY_PROGRESS | ({("links", "metadata")} if through else set()), label=label)
    # Step 0052: the subscriptions that earned a commission are known as the affiliate's for retention messages.
    backfilled = database.value("SELECT COUNT(*) FROM app_store_subscriptions WHERE source = 'affiliate'")
    earning = database.value("SELECT COUNT(DISTINCT original_transaction_id) FROM commissions")
    check(int(backfilled or 0) == int(earning or 0) > 0, f"{label}{backfilled} subscriptions known as an affiliate's, of {earning} with commissions")
    if through:
        # 0.2.0's step 0030 rewrote the metadata text of links whose metadata.utm it moved (key order, and on
        # PostgreSQL jsonb's spacing); step 0047 puts the values back, which docs/deployment.md says restores them as
        # JSON but not as the same text. Compared as JSON here; the direct upgrade above compares text.
        restored = {row["id"]: row["metadata"] for row in after["links"]}
        for row in before["links"]:
            check(json.loads(row["metadata"] or "null") == json.loads(restored.get(row["id"]) or "null"),
                  f"{label}links.metadata of {row['id']} is not the customer's JSON: {row['metadata']} became {restored.get(row['id'])}")
    for path, (status, body) in before_reads.items():
        new_status, new_body = after_reads[path]
        check(new_status == status, f"{label}{path}: {status} before, {new_status} after")
        if status == 200:
            allowed = ALLOWED_ANSWER_CHANGES | (ALLOWED_DELIVERY_CHANGES if path.endswith("/deliveries") else set())
            if path == postback_report:
                allowed |= {"rows[]." + name for name in POSTBACK_COUNTS}
            compare_answers(label + path, body, new_body, allowed=allowed)
    # The postbacks report counts production postbacks only now, its sandbox view the development ones (docs/postbacks.md);
    # 0.1.0 counted both together: nothing is lost between the two.
    was, now = before_reads[postback_report][1], after_reads[postback_report][1]
    for name in POSTBACK_COUNTS:
        total = [sum(row.get(name) or 0 for row in (report or {}).get("rows", [])) for report in (was, now, sandbox_report)]
        check(total[0] == total[1] + total[2], f"{label}postbacks report: {name} {total[0]} in 0.1.0, now {total[1]} and {total[2]} in sandbox")
    for path, metadata in (("spring", SPRING_METADATA), ("summer", SUMMER_METADATA)):
        was, now = before_probes[path], after_probes[path]
        check(now["redirect"] == was["redirect"], f"{label}/{path} redirects to {now['redirect']}, not {was['redirect']}")
        check("utm_" not in str(now["redirect"][1]), f"{label}/{path} redirects with a utm_ query the customer never set: {now['redirect'][1]}")
        check(was["resolve"][0] == 200, f"{label}0.1.0's resolve of /{path} answered {was['resolve']}")
        compare_answers(f"{label}resolve /{path}", was["resolve"][1], now["resolve"][1], allowed={"clickToken", "signedClickId"})
        resolved = now["resolve"][1] or {}
        check(resolved.get("metadata") == metadata, f"{label}resolve /{path} returns the customer's metadata: {resolved.get('metadata')}")
        # The customer's metadata.utm is back in the stored metadata (that its text is as 0.1.0 stored it,
        # compare_tables says).
        link_id = fill.link if path == "spring" else fill.summer
        stored = next((r.get("metadata") for r in after["links"] if r["id"] == link_id), None)
        check((json.loads(stored) if isinstance(stored, str) else stored) == metadata,
              f"{label}links.metadata of /{path} is not what the customer wrote: {stored!r}")
    # Said at start: the webhook 0.1.0 accepted and this version refuses, and the apps sharing an App Store id.
    check(fill.hook["webhook"]["id"] in log and "webhook(s) send to a URL this server refuses" in log, f"{label}the refused webhook is named at start")
    check(fill.twin is not None, "0.1.0 let two apps share an App Store id")
    check("App Store id they have not proven" in log and str(fill.twin) in log, f"{label}the apps sharing an App Store id are named at start")
    # The first app keeps the id as proven: its production surface received verified notifications naming it
    # (step 0045); the twin shows that another app holds it.
    shop, twin = after_reads[f"/v1/apps/{fill.app}"][1], after_reads[f"/v1/apps/{fill.twin}"][1]
    check(shop.get("appStoreIdRouting") == "this_app", f"{label}the app its notifications proved keeps its id: {shop.get('appStoreIdRouting')}")
    check(twin.get("appStoreIdRouting") == "another_app", f"{label}the twin shows another app holds its id: {twin.get('appStoreIdRouting')}")
    # 0.1.0 refuses the migrated database and leaves every row of it as it was.
    refused = subprocess.run([old_binary, "serve", "--port", "0", "--database-url", database.url], capture_output=True, text=True,
                             timeout=60, env=dict(os.environ, LINKRUNWAY_SECRET_KEY_FILE=os.path.join(work, "linkrunway.key"), **env))
    check(refused.returncode != 0, f"{label}0.1.0 refuses the migrated database")
    changed = table_changes(after, database.tables())
    check(not changed, f"{label}0.1.0's refusal changed the tables {changed}")


# ---------------------------------------------------------------------------------------------------------------------
# Rolling upgrade on PostgreSQL


class HookReceiver(http.server.BaseHTTPRequestHandler):
    received = []
    secrets = {}
    lock = threading.Lock()

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with HookReceiver.lock:
            HookReceiver.received.append((self.path, self.headers.get("LinkRunway-Signature", ""), body))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


def signature_valid(secret, header, body):
    parts = dict(p.split("=", 1) for p in header.split(",") if "=" in p)
    if not secret or "t" not in parts or "v1" not in parts:
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


def writes(server, fill, tag, hook_base):
    """Writes across the API beside the traffic, each with a body that succeeds, on either server: links made,
    changed and disabled, domains, webhooks made, tested and removed, affiliates with a program and a code and a
    bind by it, a referral code, the conversion schema, an App Store surface, an impression, an install deleted."""
    a, ws, now = fill.admin, fill.workspace, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())

    def step(method, path, body, what, key=a, statuses=(200, 201), headers=None):
        return expect(server.request(method, path, body, key=key, headers=headers), f"{server.name}: {what} ({method} {path})", statuses)

    step("PATCH", f"/v1/links/{fill.plain}", {"campaign": f"autumn-{tag}"}, "link update")
    step("PATCH", f"/v1/apps/{fill.app}", {"attribution": {"clickWindowDays": 7}}, "app update")
    step("POST", "/v1/resolve", {"url": f"https://{fill.domain}/spring", "platform": "ios", "installId": fill.installs[0]}, "resolve",
         key=fill.publishable)
    step("POST", "/v1/events/batch", {"events": [{"eventId": uuid.uuid4().hex, "type": "CUSTOM", "name": "level_up",
                                                  "installId": fill.installs[0], "timestamp": now}]}, "events", key=fill.publishable,
         statuses=(200, 201, 202))
    step("POST", "/v1/simulate/clicks", {"url": f"https://{fill.domain}/spring", "ip": "198.51.100.7"}, "simulated click")
    key = step("POST", "/v1/keys", {"kind": "server", "workspaceId": ws}, "key create", statuses=(201,))
    if key:
        step("POST", f"/v1/keys/{key['key']['id']}/revoke", None, "key revoke", statuses=(200,))
    # A link of this round: made (idempotently), changed, disabled.
    link = step("POST", "/v1/links", {"workspaceId": ws, "appId": fill.app, "domain": fill.domain, "path": f"r-{tag}",
                                      "destinations": {"web": "https://example.com/r"}}, "link create", statuses=(201,),
                headers={"Idempotency-Key": f"link-{tag}"})
    if link:
        step("PATCH", f"/v1/links/{link['id']}", {"campaign": f"round-{tag}", "metadata": {"round": tag}}, "link update")
        step("POST", f"/v1/links/{link['id']}/disable", None, "link disable")
    step("POST", "/v1/domains", {"hostname": f"{tag}.example.net", "workspaceId": ws}, "domain create", statuses=(201,))
    # A webhook of this round, tested (its deliveries are checked against its own secret), and one made and removed.
    for name, keep in ((tag, True), (tag + "-removed", False)):
        made = step("POST", "/v1/webhooks", {"workspaceId": ws, "url": f"{hook_base}/{name}", "topics": ["install", "event"]},
                    "webhook create", statuses=(201,))
        if not made:
            continue
        with HookReceiver.lock:
            HookReceiver.secrets[f"/hook/{name}"] = made["secret"]
        hook = made["webhook"]["id"]
        if keep:
            step("POST", f"/v1/webhooks/{hook}/test", None, "webhook test", statuses=(200, 201, 202))
        else:
            step("DELETE", f"/v1/webhooks/{hook}", None, "webhook delete", statuses=(200, 204))
    # An affiliate program, an affiliate with a code in it, and the app's bind by that code.
    program = step("POST", "/v1/affiliate-programs", {"appId": fill.app, "name": f"Program {tag}",
                                                      "commission": {"kind": "fixed", "amount": 100, "currency": "USD", "duration": "first"}},
                   "program create", statuses=(201,))
    affiliate = step("POST", "/v1/affiliates", {"workspaceId": ws, "name": f"Affiliate {tag}"}, "affiliate create", statuses=(201,))
    if program and affiliate:
        code = tag.replace("rolling-", "")
        step("POST", f"/v1/affiliates/{affiliate['id']}/codes", {"programId": program["id"], "code": code}, "code create", statuses=(201,))
        step("POST", "/v1/app-store/bind", {"refCode": code, "installId": fill.installs[0]}, "bind", key=fill.publishable)
    step("POST", "/v1/referral-codes", {"userId": f"user-{tag}"}, "referral code", key=fill.publishable)
    step("PUT", f"/v1/apps/{fill.app}/conversion-schema", {"rules": [{"type": "INSTALL", "fine": 1},
                                                                     {"type": "CUSTOM", "name": tag, "fine": 2, "coarse": "medium"}]},
         "conversion schema")
    step("POST", f"/v1/apps/{fill.app}/app-store-surfaces", {"environment": "sandbox"}, "surface create", statuses=(201,))
    step("POST", "/v1/impressions", {"appId": fill.app, "ip": "198.51.100.9", "network": "meta", "campaign": tag}, "impression",
         statuses=(201,), headers={"Idempotency-Key": f"impression-{tag}"})
    # An install of this round, matched, then deleted with all that is stored about it.
    install = f"gone-{tag}-{uuid.uuid4().hex[:6]}"
    if step("POST", "/v1/installs/match", {"installId": install, "platform": "ios", "consent": True}, "match", key=fill.publishable):
        step("DELETE", f"/v1/installs/{install}", None, "install delete", statuses=(200, 204))


def rolling(binary, base_url, work, env):
    print("rolling upgrade from 0.2.0 on postgres")
    receiver, receiver_url = serve_in_background(HookReceiver)
    hook_base = receiver_url + "/hook"
    database = Database.postgres(base_url, "rolling_upgrade")
    env = dict(env, LINKRUNWAY_OUTBOUND_PRIVATE_TARGETS="on")
    old = Server(os.path.join(RELEASES, "0.2.0", "linkrunway"), database.url, work, "rolling-old", env=env)
    fill = Fill(old, hook_base)
    HookReceiver.secrets["/hook"] = fill.hook["secret"]

    migrated = subprocess.run([binary, "migrate", "--database-url", database.url], capture_output=True, text=True, timeout=120)
    check(migrated.returncode == 0, f"migrate failed: {migrated.stdout}{migrated.stderr}")
    fill.traffic(old, "old-after-migrate")
    writes(old, fill, "old-migrated", hook_base)
    route_count = every_route(old, fill, "0.2.0 after migrate")

    new = Server(binary, database.url, work, "rolling-new", env=env)
    check("waits until no server of an older version runs" in new.output(), "today's server does not seal while 0.2.0 runs")
    for round_number in range(3):
        for server in (old, new):
            fill.traffic(server, f"{server.name}-{round_number}")
            writes(server, fill, f"{server.name}-{round_number}", hook_base)
    every_route(old, fill, "0.2.0 beside today's server")
    every_route(new, fill, "today's server beside 0.2.0")
    old.stop()
    fill.traffic(new, "after-old-stopped")
    writes(new, fill, "new-alone", hook_base)
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
        secrets = dict(HookReceiver.secrets)
    check(len(received) >= expected > 0, f"{len(received)} deliveries received of {expected}")
    bad = [path for path, header, body in received if not signature_valid(secrets.get(path), header, body)]
    check(not bad, f"{len(bad)} of {len(received)} webhook signatures do not verify (to {sorted(set(bad))[:5]})")
    check(len({path for path, _, _ in received}) > 1, "the webhooks made during the upgrade received nothing")
    for server in (old, new):
        problems = server.problems()
        check(not problems, f"{server.name}'s log has {len(problems)} error or 5xx line(s): {problems[:5]}")
    print(f"  {route_count} route requests, {len(received)} webhook deliveries to {len(secrets)} webhooks verified")
    receiver.shutdown()


def main():
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/linkrunway")
    started = time.time()
    with tempfile.TemporaryDirectory() as work:
        signer = AppStoreSigner(work)
        adservices, adservices_url = serve_in_background(AdServices)
        # Both the old and the new servers trust the test root and ask the stand-in AdServices.
        env = {"LINKRUNWAY_APP_STORE_ROOT": signer.root, "LINKRUNWAY_APPLE_ADS_URL": adservices_url}
        backends = [("sqlite", lambda name: Database.sqlite(os.path.join(work, name, "linkrunway.db")))]
        postgres = os.environ.get("LINKRUNWAY_TEST_POSTGRES_URL")
        if postgres:
            backends.append(("postgres", lambda name: Database.postgres(postgres, name.replace("-", "_"))))
        for kind, make in backends:
            for through in (None, "0.2.0"):
                name = f"{kind}-{'from-010' if through is None else 'via-020'}"
                os.makedirs(os.path.join(work, name))
                upgrade(binary, make(name), os.path.join(work, name), env, signer, through=through)
        if postgres:
            os.makedirs(os.path.join(work, "rolling"))
            rolling(binary, postgres, os.path.join(work, "rolling"), env)
        else:
            print("LINKRUNWAY_TEST_POSTGRES_URL is not set: the PostgreSQL upgrades and the rolling upgrade are skipped")
        adservices.shutdown()
    print(f"upgrade tests: {time.time() - started:.0f} s" + (f"; skipped: {'; '.join(skipped)}" if skipped else ""))
    if failures:
        print(f"upgrade tests: {len(failures)} failure(s)")
        sys.exit(1)
    print("upgrade tests: passed")


if __name__ == "__main__":
    main()
