#!/usr/bin/env python3
"""Writes docs/benchmarks.md from bench/results/latest.json and soak-latest.json (make bench and make soak run it).
With --check, fails when docs/benchmarks.md is not what the saved results give (make test runs that), so the page
is never edited by hand."""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "bench", "results", "latest.json")
SOAK = os.path.join(ROOT, "bench", "results", "soak-latest.json")
PAGE = os.path.join(ROOT, "docs", "benchmarks.md")

# What we set out to reach, by benchmark: (ratio or p99 target, in words).
TARGETS = {
    "healthz_vs_nginx": (0.8, "0.8 of nginx"),
    "redirect_vs_nginx": (0.5, "half of nginx, p99 under 10 ms"),
    "redirect_rules_vs_plain": (0.9, "within 10% of the plain redirect"),
    "classifier_unseen_agents": (0.8, "within 20% of a User-Agent seen before"),
    "events_single_sqlite": (0.3, "0.3 of the bulk insert"),
    "events_batch_sqlite": (0.6, "0.6 of the bulk insert"),
    "postbacks_vs_openssl": (0.5, "0.5 of OpenSSL's verifications per core"),
    "redirect_postgres_vs_nginx": (0.3, "0.3 of nginx"),
}

# Why a profiled benchmark is where it is, and the next step (read from its profile; kept with the code that makes
# the page so it changes when the profile does).
NEXT_STEPS = {
    "healthz_vs_nginx": "answered on libmicrohttpd's thread by the hot path (no task, no middleware; only the headers it "
                        "reads become Strings) with a response prepared once and shared by every connection. Two thirds "
                        "of the time is the kernel (`sendmsg`, `recv`, epoll) on loopback, with wrk on the same two "
                        "cores, which nginx pays too. Of ours, the access log's line is the largest part (formatted into "
                        "the thread's buffer and written by a thread of its own; the run at `warn` shows what it costs), "
                        "then libmicrohttpd clearing its connection buffer (`memset`) for each request. On this shared "
                        "machine the ratio moves between runs (0.69 to 0.89 in the runs of this round). Next: a smaller "
                        "default connection buffer, and the log line's fields written without intermediate Strings.",
    "redirect_vs_nginx": "answered on libmicrohttpd's thread from the link cache, with no task; the click goes to the "
                         "writer as a row, and the connection resumes once a sync that began after its commit has ended, "
                         "so the 302 follows a durable click (p99 under 10 ms). The writer sends up to 64 queued clicks "
                         "a statement, and their link's daily figures as one upsert a statement (which had been most of "
                         "the writer's time until its text was made once). The kernel is nearly half of the samples: "
                         "besides the socket work nginx does too, each resumed connection wakes libmicrohttpd's thread "
                         "again to send its answer, and the sync thread's `fdatasync` writes the WAL. Next: resume the "
                         "connections a sync completes in one pass per libmicrohttpd thread instead of a wake-up each, "
                         "and fewer indexes on clicks for the writer to keep.",
    "redirect_rules_vs_plain": "the same hot path, with the link's six rules evaluated, a variant drawn and the UTM "
                               "values added to the target; the writer's figures gain a row a variant. The two links "
                               "alternate on one server, and on this shared machine single rounds differ by more than "
                               "the 10% sought: with three rounds the ratio moved between 0.84 and 1.13 from run to run, "
                               "so this benchmark now takes the median of seven, each link going first in turn. In the run "
                               "of this page it read 0.829 (and the classifier 0.799); partial runs the same hour read "
                               "0.884 and 0.963 with this build (the classifier 0.837), and 0.768 with the build before "
                               "this round's changes, which do not touch either path. Next: a profile of the rules "
                               "alone, to see what their few percent are spent on.",
    "classifier_unseen_agents": "the same hot path answering a prefetch, with the User-Agent classified anew each time "
                                "instead of found among the 2,048 recent ones: people told from machines (the named "
                                "list, the client tools, the machine words, the signatures), the OS version read and "
                                "the in-app browser named, all as byte searches over the lower-cased text. The one-pass "
                                "search buckets its needles by their first two bytes in flat arrays (bucketed by one "
                                "byte, in nested arrays, it was 5.4% of the samples; now about 3%). Next: lower-case "
                                "into a buffer of the thread's instead of a new array, and look the recent cache up "
                                "and fill it under one lock.",
    "redirect_postgres_vs_nginx": "the same path, with PostgreSQL (on the same two cores, and not in this profile) as "
                                  "the store. Each of its four writers adds to the link's figures in a lane of its own, "
                                  "so they commit side by side (sharing the rows, they had queued on one row's lock: "
                                  "1,260 clicks/s). Half of the samples are the kernel: every statement is a round "
                                  "trip on loopback (a group commit's clicks, their figures' upsert, the savepoints, "
                                  "COMMIT), and the writers wait on each. Next: send a group commit's statements in "
                                  "libpq's pipeline mode instead of waiting for each answer.",
    "events_single_sqlite": "one request an event: the handler's tasks (decoding, checks) are 39% of the samples, the "
                            "writer 32%, and the kernel a third of everything; SQLite is under a tenth. Each event is a "
                            "write job of its own, in its own savepoint. Next: decode straight from the body's bytes into "
                            "the row's values, and hand single events to the writer as rows, so that concurrent requests' "
                            "events share multi-row statements as a redirect's clicks do. This round: the writer read the "
                            "event's install through a new column plan each time (a linear search of the row's column "
                            "names a property); the places are now kept per type and column list, and a cached "
                            "statement's rows share one list. Alternated with the build before, the writer's CPU fell "
                            "from 0.53 to 0.41 of a core at 18-20k events/s. A full run's figure moves with the machine "
                            "and with its limit: the bulk insert read 244k, 323k and 225k rows/s in three runs of one day. "
                            "Round of 2026-12-08: the writer reads only the 14 install columns an event needs, not the "
                            "whole row with its explanation's JSON (decoding it was a third of the writer's samples), and "
                            "looks the id up in the events' own key on SQLite: the writer's CPU 38 us an event against 44, "
                            "alternated; API keys are hashed with SHA-256 fetched from OpenSSL once (the one-shot call "
                            "fetched it every time, 5% of the handler's samples). The full run read 17,371 events/s "
                            "against 14,274 the run before, but its limit read 294k rows/s against 202k.",
    "events_batch_sqlite": "a hundred events a request. This round: (1) on SQLite the writer looks a batch's ids up "
                           "in the events' own primary key instead of inserting them into `event_ids` first (every "
                           "SQLite write holds the one write lock, so the event stored next claims its id; step 0071 "
                           "drops `event_ids` there): an event fills four B-trees, not seven, and the claim decodes no "
                           "RETURNING rows. Alternated on fresh servers: 109-113k events/s against 92-99k, the writer's "
                           "CPU 7.9 us an event against 9.7. (2) The JSON parser decodes ASCII text without the generic "
                           "validation (its metadata lookups were a third of the parser's string time) and objects of up "
                           "to sixteen members compare names instead of hashing them: the handler tasks' CPU 5.0 us an "
                           "event against 6.0. The writer is the bottleneck (0.85-0.92 of a core): the events' "
                           "multi-row inserts are 40% of it (SQLite's B-tree work a bit over half of that), the id "
                           "lookup 12%, the per-event bookkeeping (app, install, attribution, outcomes) a fifth, "
                           "checkpoints and commits a tenth. A correction: the last round's alternated figures "
                           "(117-157k) came from a probe whose later rounds sent the first round's ids again, so most "
                           "of those events were duplicates; a first round on a fresh server read 92-99k for that "
                           "build. Next: the rows' values built on the handler tasks, so the writer only binds them.",
    "match_latency_sqlite": "measured open loop (2,000 matches/s offered, latency from when each was due), so it is "
                            "latency, not wrk's queueing: a warm-up, then five rounds whose median p99 is reported, with "
                            "the machine's floor beside it (/healthz offered the same way, and `fdatasync`). Every match "
                            "is one write job: it reads the plan (the stored answer, the address's newest unclaimed "
                            "clicks), claims the click, stores the install and its explanation and adds the install to "
                            "its link's figures, all on the writer's connection. All requests come from one address (a "
                            "carrier's NAT, the worst case). Earlier rounds: a savepoint's page copies kept in memory, "
                            "the claim made on the click's row, the writer's cache at 16 MiB (p99 8.8 to 6.3 ms). This "
                            "round: (1) the plan is read in the write instead of on a reader, where SQLite empties the "
                            "page cache after every write (each plan read its pages from the file again) and the "
                            "hand-off woke two more threads a match; alternated at 2,000 matches/s, the server's CPU "
                            "went from 1.15-1.25 cores to 0.93 and p50 from 2.5-3.4 to 1.4-2.4 ms, and `ClaimsInFlight` "
                            "is gone, since the one writer plans after every claim; (2) the explanation writes its JSON "
                            "itself (4.5% of the samples to 2.2%); (3) the API key is read without Foundation's "
                            "trimming (1.4%). The p99 did not follow here: the machine was noisier than the day before "
                            "(partial runs in the same hour: 18-21 ms with the build before this round, 9-21 ms with "
                            "this one; p50 lower in each). What is left: about nine pages a match reach the WAL (the "
                            "install, its three indexes, the click and its index, the figures' rows), so the writer "
                            "checkpoints every 60 ms or so and pauses 4-5 ms each time; checkpoints made by a thread of "
                            "their own (tried) made the disk's syncs compete and p99 worse. Next: fewer pages a match "
                            "(the explanation's rules derived from its settings rather than stored, fewer install "
                            "indexes), the figures summed once a commit. The full run of 2026-12-08 00:26 read p99 191 "
                            "ms on a noisy machine; partial runs right after, alternated: this build 7.4 and 6.4 ms, the "
                            "build of the run before (e45ae96, which read 6.2 ms in its full run) 34 and 62 ms.",
    "postbacks_vs_openssl": "the signature check (libcrypto) is a third of the samples, so a postback costs about three "
                            "verifications' worth of CPU; the kernel (HTTP, and `fdatasync` of the WAL) a quarter, the rest "
                            "the handler's task (parsing the JSON, decoding the fields) and the durable write. Next: fewer "
                            "allocations in the postback parser, and the raw and decoded rows in one statement. The full "
                            "run of 2026-12-08 01:21 read 0.175 with a p99 of 839 ms, a stall; alternated partial runs "
                            "right after read 0.199 and 0.222 for that build and 0.226 and 0.246 for the one before its "
                            "SHA-256 change, within the machine's noise (SHA-256 itself got faster: 115 ns a call "
                            "against 377 in C on one thread, and no provider lookup under locks).",
    "link_stats_year": "a year of a busy link (60 countries and 100 referrers a day, three variants, scan or tap) in "
                       "one answer with every breakdown. The changes of this round, in order, took one answer alone "
                       "from p50 19 ms and p99 30 ms (run of 2026-12-06 14:08) to p99 11.8-12.5 ms, then under 10: a "
                       "month the range covers in part is read as its month row less the days outside when those are "
                       "fewer; on SQLite the rows are added up as they are read instead of grouped by SQLite first; "
                       "the answer's rows write their JSON straight into bytes; a stored measure is parsed once per "
                       "row; rows of one statement share their column names. Then, on SQLite, the breakdowns keep a row "
                       "per year beside those per day and month, and a year the range covers in part is read as its "
                       "year row less the months and days outside when that is fewer rows: the last 365 days are this "
                       "year's row and last December less its first days, not thirteen months (the breakdowns' rows "
                       "from about 5,800 to 900). PostgreSQL keeps no year rows: its redirects fell by a tenth with "
                       "them (each upserted row costs its writers), SQLite's by nothing measurable. And SQLite's "
                       "previews and bots are clustered by link and day, read in order instead of looked up row by "
                       "row. One answer alone is now measured in five rounds of 300 (medians), as this machine slows "
                       "by half for a second at a time: in one full run of this session it slowed for longer (the "
                       "SQLite limit fell from about 160 to 85 sets a second) and a single round read p99 10.4 ms. "
                       "What is left: the 365 days' totals (2,555 rows) and the JSON of the answer, about a third each. "
                       "Next: a row per day holding every measure.",
}


def profile_lines(result):
    """The profile of one benchmark as Markdown: threads, top functions, and the next step."""
    where = result.get("profile")
    if not where:
        return []
    threads = ", ".join(f"{name} {share:.0f}%" for name, share in where["threads"].items())
    libraries = ", ".join(f"{name} {share:.0f}%" for name, share in where.get("libraries", {}).items() if share >= 1)
    inclusive = "self" in (where["functions"] or [{}])[0]
    lines = [f"### `{result['name']}`", "", f"{where['how']}. Threads: {threads}. Code (self time): {libraries}.", ""]
    if inclusive:
        lines += ["| inclusive | self | in | function |", "|---|---|---|---|"]
        for f in where["functions"]:
            lines.append(f"| {f['percent']:.1f}% | {f['self']:.1f}% | {f['where']} | `{f['function'].replace('|', '/')}` |")
    else:
        lines += ["| self | in | function |", "|---|---|---|"]
        for f in where["functions"]:
            lines.append(f"| {f['percent']:.1f}% | {f['where']} | `{f['function'].replace('|', '/')}` |")
    if result["name"] in NEXT_STEPS:
        lines += ["", f"Why: {NEXT_STEPS[result['name']]}"]
    return lines + [""]


GROWTH = """## How the costs grow with data

- **Redirects** write one click row each: the cost per click hardly grows with the clicks stored (one B-tree
  insert per index of the table, each logarithmic in its size). Click tokens begin with the time, so the token index
  grows at its end like the time indexes, and a group commit writes a few pages rather than one per click.
  Retention keeps the table bounded (`LINKRUNWAY_RETAIN_CLICKS_DAYS`); on PostgreSQL each month is its own
  partition, so an insert touches only the current month's indexes.
- **Install matching** looks up the newest unclaimed click from the device's hashed address inside the window,
  through an index on (workspace, address hash, time) that holds only unclaimed clicks: its cost grows with the
  clicks *from that one address* in the window (a carrier's NAT is the worst case, and is what the benchmark
  measures: 100,000 of the 1,000,000 clicks come from the benchmark's own address), and only logarithmically with
  the rest. Address hashes are cleared after `LINKRUNWAY_RETAIN_ADDRESS_HASHES_HOURS`, which also bounds that index.
- **Events** are one row (and one id row for deduplication) each: constant per event, logarithmic in the events
  stored; batches share one commit. Reports scan the events of the range asked for, through (workspace, time)
  indexes, so they grow with the range, not with the table.
- **A link's figures** (`GET /v1/links/{id}/stats`) are read from daily rollups, by the link and the range of
  days: the cost grows with the days asked for (at most 366) and the values each dimension had on them (countries,
  referrer hosts), never with the clicks, installs or events behind them. The writer keeps them up with one upsert
  of a row per link, dimension and day for each statement of up to 64 clicks, so a redirect's share is a fraction
  of its insert.
- **Postbacks and App Store notifications** are dominated by signature checks (one and two ECDSA P-256
  verifications), which do not depend on what is stored; the duplicate check is one primary-key lookup.
- **Durable writes** cost one share of a group commit: under load many writes share one fsync, so throughput grows
  with concurrency until the CPU, not the disk, is the limit (as here, where wrk and the server share two cores).
"""


def figure(result):
    """(ours, limit, ratio, target, verdict) as text."""
    name, ours, limit = result["name"], result["ours"], result["limit"]
    ratio = result.get("throughput_ratio")
    p99 = ours.get("p99_ms")
    latency = f", p50 {ours['p50_ms']:.1f} ms, p99 {p99:.1f} ms" if "p50_ms" in ours and p99 is not None else ""
    if name == "match_latency_sqlite":
        ours_text = f"{ours['requests_per_second']:,.0f} matches/s{latency}"
        if "healthz_p99_ms" in ours:
            ours_text += (f"; same generator to /healthz p99 {ours['healthz_p99_ms']:.1f} ms, "
                          f"fdatasync p99 {ours['fdatasync_p99_ms']:.1f} ms")
        return ours_text, "target p99 ≤ 5 ms", "–", "p99 ≤ 5 ms", "met" if p99 is not None and p99 <= 5 else "not met"
    if name == "retention_realtime":
        ours_text = f"{ours['requests_per_second']:,.0f} requests/s{latency}"
        return ours_text, "target p99 ≤ 70 ms", "–", "p99 ≤ 70 ms (a tenth of Apple's 700 ms)", "met" if p99 is not None and p99 <= 70 else "not met"
    if name == "link_stats_year":
        alone = ours.get("alone_p99_ms")
        ours_text = f"{ours['requests_per_second']:,.0f} req/s{latency}; one answer alone p50 {ours['alone_p50_ms']:.1f} ms, p99 {alone:.1f} ms"
        limit_text = f"{limit['requests_per_second']:,.0f} sets of queries/s ({limit['name']}, p99 {limit['p99_ms']:.1f} ms)"
        return ours_text, limit_text, f"{ratio:.3f}", "one answer alone: p99 ≤ 10 ms", "met" if alone is not None and alone <= 10 else "not met"
    if "per_second_per_core" in " ".join(ours):
        field = next(k for k in ours if k.endswith("_per_second_per_core"))
        ours_text = f"{ours[field]:,.0f}/s per core ({ours['requests_per_second']:,.0f}/s on {ours['cores']}){latency}"
        limit_text = f"{limit['requests_per_second']:,.0f} verifications/s (openssl speed, one core)"
    elif "events_per_second" in ours:
        ours_text = f"{ours['events_per_second']:,.0f} events/s{latency}"
        limit_text = f"{limit['rows_per_second']:,.0f} rows/s (bulk INSERT)"
    elif "rows_per_second" in limit:
        ours_text = f"{ours['requests_per_second']:,.0f} writes/s{latency}"
        limit_text = f"{limit['rows_per_second']:,.0f} rows/s (bulk INSERT)"
    else:
        ours_text = f"{ours['requests_per_second']:,.0f} req/s{latency}"
        limit_text = f"{limit['requests_per_second']:,.0f} req/s ({limit['name']})"
    target, words = TARGETS.get(name, (None, "–"))
    verdict = "–" if target is None else ("met" if ratio is not None and ratio >= target else "not met")
    return ours_text, limit_text, f"{ratio:.3f}" if ratio is not None else "–", words, verdict


def render(report, soak=None):
    machine = report["machine"]
    settings = report["settings"]
    lines = [
        "# Benchmarks",
        "",
        f"Generated by `make bench` from `bench/results/latest.json` (run of {report['date']}); `make test` fails when",
        "this page differs from the saved results, so it is never edited by hand.",
        "",
        f"Machine: {machine['cores']} cores, {machine['platform']}. Load: wrk with {settings['wrk_threads']} threads and "
        f"{settings['connections']} connections on loopback, {settings['seconds']}-second rounds, {settings['rounds']} rounds "
        "alternating with the limit where there is one (medians). wrk and the server share the cores.",
        "",
        f"Settings: LinkRunway with {settings.get('linkrunway', 'the settings of this run')}; nginx with "
        f"{settings.get('nginx', 'its settings of this run')}.",
        "",
        "Each figure stands beside a limit measured in the same run on the same machine: nginx doing the same trivial",
        "job, a bulk `INSERT … SELECT` of the same rows straight into the database, or `openssl speed ecdsap256`.",
        "",
        "| benchmark | LinkRunway | limit | ratio | target | |",
        "|---|---|---|---|---|---|",
    ]
    for result in report["results"]:
        if "limit" not in result:
            continue
        ours, limit, ratio, target, verdict = figure(result)
        lines.append(f"| `{result['name']}` | {ours} | {limit} | {ratio} | {target} | {verdict} |")
    for result in report["results"]:
        if "access_log_share" in result.get("ours", {}):
            ours = result["ours"]
            lines += ["", f"The access log (`healthz_vs_nginx`, the default server beside one with its log at `warn`, in "
                          f"alternating rounds): {ours['requests_per_second']:,.0f} against "
                          f"{ours['with_log_at_warn_requests_per_second']:,.0f} req/s, so it costs "
                          f"{ours['access_log_share']:.1%} of the throughput."]
        if result["name"] == "allocations_per_request":
            counts = ", ".join(f"{name.removesuffix('_allocations')} {value:g}" for name, value in result["ours"].items())
            lines += ["", f"Heap allocations per request (`allocations_per_request`, the whole process): {counts}."]
    lines += ["", "## What each measures", ""]
    for result in report["results"]:
        lines.append(f"- `{result['name']}`: {result.get('what', '')}")
    if soak:
        lines += ["", "## Soak", "",
                  f"`make soak` (run of {soak['date']}): {soak['mix']} from wrk, {soak['seconds']} s on loopback: "
                  f"{soak['requests']:,} requests ({soak['requests_per_second']:,.0f}/s, p99 {soak['p99_ms']} ms), "
                  f"{soak['errors']} errors; the server's memory {soak['rss_kib_after_warmup'] / 1024:.1f} MiB after a "
                  f"{soak['warmup_seconds']}-second warm-up and {soak['rss_kib_end'] / 1024:.1f} MiB at the end "
                  f"({soak['rss_growth']:+.1%}; target: no errors, within 10%)."]
    profiled = [line for result in report["results"] for line in profile_lines(result)]
    if profiled:
        lines += ["", "## Where the time goes", ""] + profiled[:-1]
    lines += ["", GROWTH.rstrip(), ""]
    return "\n".join(lines)


def main():
    with open(RESULTS) as f:
        report = json.load(f)
    soak = None
    if os.path.exists(SOAK):
        with open(SOAK) as f:
            soak = json.load(f)
    page = render(report, soak)
    if "--check" in sys.argv:
        current = open(PAGE).read() if os.path.exists(PAGE) else ""
        if current != page:
            sys.exit("docs/benchmarks.md differs from bench/results/latest.json: run `python3 bench/report.py` (make bench does)")
        print("benchmarks page: matches bench/results/latest.json")
        return
    with open(PAGE, "w") as f:
        f.write(page)
    print("wrote docs/benchmarks.md")


if __name__ == "__main__":
    main()
