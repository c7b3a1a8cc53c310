#!/usr/bin/env python3
"""Mutation testing of the critical logic, with no outside tool: `make mutate`.

Each mutant in mutation/mutants.json names a file, an exact text that occurs once in it, its replacement, and the
tests expected to catch it. The harness copies the project to a scratch folder (kept between runs, so builds there
are incremental), checks that the suite passes unchanged, then per mutant: applies it, rebuilds, runs the named tests
and, when they pass, the whole suite of that package; the mutant is killed when a run fails, survived when both pass,
and invalid when it does not compile. It writes mutation/results.json and prints the score.

    python3 scripts/mutate.py                 # every mutant
    python3 scripts/mutate.py --only a,b      # some of them
    python3 scripts/mutate.py --check         # only validate the list

PostgreSQL tests run when LINKRUNWAY_TEST_POSTGRES_URL is set (`make mutate` starts one).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIST = os.path.join(ROOT, "mutation", "mutants.json")
RESULTS = os.path.join(ROOT, "mutation", "results.json")
FIELDS = {"id", "area", "package", "file", "find", "replace", "tests", "bug"}


def load():
    with open(LIST) as f:
        mutants = json.load(f)
    problems, seen = [], set()
    for m in mutants:
        missing = FIELDS - set(m)
        if missing:
            problems.append(f"{m.get('id', '?')}: missing {sorted(missing)}")
            continue
        if m["id"] in seen:
            problems.append(f"{m['id']}: the id is used twice")
        seen.add(m["id"])
        if m["package"] not in (".", "sdk"):
            problems.append(f"{m['id']}: package must be '.' or 'sdk'")
        path = os.path.join(ROOT, m["file"])
        if not os.path.isfile(path):
            problems.append(f"{m['id']}: no file {m['file']}")
            continue
        count = open(path).read().count(m["find"])
        if count != 1:
            problems.append(f"{m['id']}: the text occurs {count} times in {m['file']}, not once")
        if m["find"] == m["replace"]:
            problems.append(f"{m['id']}: the replacement is the text itself")
    return mutants, problems


def scratch_copy(base):
    """The project in base/project, beside a link to ../shared so the vector tests find their files there too."""
    project = os.path.join(base, "project")
    os.makedirs(project, exist_ok=True)
    shared = os.path.join(os.path.dirname(ROOT), "shared")
    link = os.path.join(base, "shared")
    if os.path.isdir(shared) and not os.path.exists(link):
        os.symlink(shared, link)
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT, check=True,
                            capture_output=True).stdout.decode().split("\0")
    wanted = {f for f in listed if f and f != "mutation/results.json" and os.path.isfile(os.path.join(ROOT, f))}
    for name in wanted:
        source, target = os.path.join(ROOT, name), os.path.join(project, name)
        if os.path.isfile(target) and open(source, "rb").read() == open(target, "rb").read():
            continue
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(source, target)
    for folder, directories, files in os.walk(project):
        directories[:] = [d for d in directories if d != ".build"]
        for name in files:
            relative = os.path.relpath(os.path.join(folder, name), project)
            if relative not in wanted:
                os.remove(os.path.join(folder, name))
    return project


def run(command, cwd, timeout, log):
    started = time.monotonic()
    with open(log, "a") as out:
        try:
            code = subprocess.run(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            code = "timeout"
    # A test process that crashed or timed out leaves its servers behind; they would hold the next run's ports and
    # PostgreSQL connections.
    subprocess.run(["pkill", "-KILL", "-f", os.path.join(cwd, ".build") + "/"], check=False)
    return code, time.monotonic() - started


def build(project, package, log):
    command = ["swift", "build", "--build-tests"] + (["--package-path", "sdk"] if package == "sdk" else [])
    return run(command, project, 1800, log)[0] == 0


def test(project, package, tests, log):
    """0 when the tests pass; whole suite when tests is None."""
    command = ["swift", "test", "--skip-build"] + (["--package-path", "sdk"] if package == "sdk" else [])
    if tests:
        command += ["--filter", tests]
    elif package == ".":
        # As make test runs it: the slow-client suite, which checks no logic under mutation, stays out.
        command += ["--skip", "SlowClientTests"]
    return run(command, project, 1500, log)


def last_lines(path, count=12):
    with open(path, errors="replace") as f:
        lines = [line.rstrip() for line in f if "✘" in line or "error:" in line]
    return lines[:count]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="comma-separated mutant ids")
    parser.add_argument("--check", action="store_true", help="validate the list and stop")
    parser.add_argument("--scratch", default=os.environ.get("MUTATE_DIR", os.path.join(os.environ.get("TMPDIR", "/tmp"), "linkrunway-mutate")))
    args = parser.parse_args()

    mutants, problems = load()
    for p in problems:
        print("mutants.json:", p, file=sys.stderr)
    if problems:
        return 2
    print(f"{len(mutants)} mutants in {LIST[len(ROOT) + 1:]}, over {len({m['area'] for m in mutants})} areas")
    if args.check:
        return 0
    chosen = [m for m in mutants if not args.only or m["id"] in args.only.split(",")]
    if not os.environ.get("LINKRUNWAY_TEST_POSTGRES_URL"):
        print("LINKRUNWAY_TEST_POSTGRES_URL is not set: PostgreSQL tests skip (make mutate starts a PostgreSQL)", file=sys.stderr)

    project = scratch_copy(args.scratch)
    logs = os.path.join(args.scratch, "logs")
    os.makedirs(logs, exist_ok=True)
    # The unchanged suite must pass the named tests, or a kill means nothing.
    for package in sorted({m["package"] for m in chosen}):
        union = "|".join(sorted({m["tests"] for m in chosen if m["package"] == package}))
        log = os.path.join(logs, f"baseline-{package.strip('.') or 'root'}.log")
        open(log, "w").close()
        if not build(project, package, log):
            print(f"the unchanged {package} package does not build; see {logs}", file=sys.stderr)
            return 1
        code, _ = test(project, package, union, log)
        if code != 0:
            print(f"the named tests fail without any mutant ({package}); see {logs}", file=sys.stderr)
            return 1

    results = []
    previous = {}
    if os.path.exists(RESULTS):
        previous = {r["id"]: r for r in json.load(open(RESULTS)).get("mutants", [])}
    for index, m in enumerate(chosen, 1):
        path = os.path.join(project, m["file"])
        original = open(path).read()
        log = os.path.join(logs, m["id"] + ".log")
        open(log, "w").close()
        started = time.monotonic()
        try:
            with open(path, "w") as f:
                f.write(original.replace(m["find"], m["replace"], 1))
            if not build(project, m["package"], log):
                status, by, detail = "invalid", None, last_lines(log, 4)
            else:
                code, _ = test(project, m["package"], m["tests"], log)
                if code != 0:
                    status, by, detail = "killed", "named tests", last_lines(log)
                else:
                    # The whole suite must fail twice: a failure of one run alone is a flaky test, not a kill.
                    codes = [test(project, m["package"], None, log)[0]]
                    if codes[0] != 0:
                        codes.append(test(project, m["package"], None, log)[0])
                    if all(code != 0 for code in codes):
                        status, by, detail = "killed", "whole suite", last_lines(log)
                    else:
                        status, by, detail = "survived", None, last_lines(log) if codes[0] != 0 else []
        finally:
            with open(path, "w") as f:
                f.write(original)
        seconds = round(time.monotonic() - started)
        results.append({"id": m["id"], "area": m["area"], "status": status, "killedBy": by, "seconds": seconds, "failures": detail})
        print(f"[{index}/{len(chosen)}] {m['id']}: {status}{' by ' + by if by else ''} ({seconds} s)", flush=True)

    # Keep earlier results of mutants not run this time, so --only refines a full run.
    merged = {**previous, **{r["id"]: r for r in results}}
    ordered = [merged[m["id"]] for m in mutants if m["id"] in merged]
    valid = [r for r in ordered if r["status"] != "invalid"]
    killed = [r for r in valid if r["status"] == "killed"]
    score = round(100 * len(killed) / len(valid), 1) if valid else 0.0
    with open(RESULTS, "w") as f:
        json.dump({"date": time.strftime("%Y-%m-%d"), "score": score, "killed": len(killed), "valid": len(valid),
                   "invalid": len(ordered) - len(valid), "mutants": ordered}, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"\nmutation score: {len(killed)} of {len(valid)} killed ({score}%)")
    for r in ordered:
        if r["status"] != "killed":
            print(f"  {r['status']}: {r['id']}")
    for r in ordered:
        if r["killedBy"] == "whole suite":
            print(f"  killed only by the whole suite (name the test that caught it): {r['id']}")
    return 0 if score >= 95 and not any(r["status"] == "invalid" for r in ordered) else 1


if __name__ == "__main__":
    sys.exit(main())
