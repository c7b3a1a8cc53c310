#!/usr/bin/env python3
"""Runs the commands of the guides (make docs-check; arguments: [binary [guide.md ...]]).

Blocks fenced as `sh` run for real, in order, one bash session per guide, against a fresh server on a temporary
SQLite file (LINKRUNWAY_URL, LINKRUNWAY_KEY and LINKRUNWAY_DATABASE_URL are set for them) that asks a stand-in of
Apple's AdServices API (`linkrunway dev fake-adservices`) about Apple Ads claims. Blocks fenced as `bash`
are steps for the operator's own machine (packages, systemd, TLS, Xcode): they are checked, not run: bash must parse
them, every `linkrunway` command in them must exist with every flag it is given, and every file of this repository
they name must exist. Every relative link of every Markdown file of the repository must name a file that exists,
and a heading of it when it has a `#fragment`.
"""
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GUIDES = ["README.md", "docs/getting-started.md", "docs/sdk-with-curl.md", "docs/links.md", "docs/attribution.md",
          "docs/migrating.md", "docs/webhooks.md", "docs/postbacks.md", "docs/apple-ads.md", "docs/app-attest.md", "docs/affiliates.md",
          "docs/app-store-replay.md", "docs/retention.md", "docs/publisher-ads.md",
          "docs/console.md", "docs/api.md", "docs/deployment.md", "docs/privacy.md", "CONTRIBUTING.md"]
FENCE = re.compile(r"^```([a-z]*)\n(.*?)^```", re.S | re.M)


def blocks(path):
    text = open(os.path.join(ROOT, path), encoding="utf-8").read()
    for match in FENCE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        yield match.group(1), match.group(2), line


def start_fake_adservices(binary):
    """A stand-in of Apple's AdServices API on a free port, and its URL (the guides claim tokens such as `tap`)."""
    process = subprocess.Popen([binary, "dev", "fake-adservices", "--port", "0"], stdout=subprocess.PIPE, text=True)
    found = re.search(r"http://127\.0\.0\.1:\d+", process.stdout.readline())
    if found is None:
        process.kill()
        sys.exit("docs-check: the AdServices stand-in did not start")
    return process, found.group(0)


def start_server(binary, directory, apple_ads_url):
    log = open(os.path.join(directory, "serve.log"), "w+")
    process = subprocess.Popen([binary, "serve", "--port", "0", "--database-url", f"sqlite:{directory}/linkrunway.db"],
                               stdout=subprocess.PIPE, stderr=log, text=True, cwd=directory,
                               env={**os.environ, "LINKRUNWAY_LOG_LEVEL": "warn", "LINKRUNWAY_APPLE_ADS_URL": apple_ads_url})
    key, port, deadline = None, None, time.time() + 30
    while time.time() < deadline and port is None:
        line = process.stdout.readline()
        if not line:
            break
        key = key or next((word for word in line.split() if word.startswith("lr_ak_")), None)
        found = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
        if found:
            port = found.group(1)
    if port is None or key is None:
        process.kill()
        log.seek(0)
        sys.exit(f"docs-check: the server did not start:\n{log.read()}")
    return process, port, key


def run_guide(binary, guide, runnable, apple_ads_url):
    with tempfile.TemporaryDirectory(prefix="docs-check-") as directory:
        process, port, key = start_server(binary, directory, apple_ads_url)
        try:
            script = ["set -euo pipefail"]
            for number, (body, line) in enumerate(runnable):
                script.append(f"echo '>>> {guide}:{line}' >&2")
                script.append(body)
            environment = {**os.environ,
                           "PATH": os.path.dirname(binary) + os.pathsep + os.environ.get("PATH", ""),
                           "LINKRUNWAY_URL": f"http://127.0.0.1:{port}", "LINKRUNWAY_KEY": key,
                           "LINKRUNWAY_DATABASE_URL": f"sqlite:{directory}/linkrunway.db"}
            result = subprocess.run(["bash", "-c", "\n".join(script)], cwd=directory, env=environment,
                                    capture_output=True, text=True, timeout=300)
            if result.returncode != 0:
                where = [l for l in result.stderr.splitlines() if l.startswith(">>> ")]
                sys.exit(f"docs-check: {where[-1][4:] if where else guide} failed (exit {result.returncode})\n"
                         f"--- stdout\n{result.stdout[-3000:]}\n--- stderr\n{result.stderr[-3000:]}")
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=30)


def command_lines(body):
    """The block's commands, continuation lines joined, comments dropped."""
    joined = body.replace("\\\n", " ")
    for line in joined.splitlines():
        line = line.split(" #")[0].strip()
        if line and not line.startswith("#"):
            yield line


def simple_commands(line):
    """The simple commands of one line: split at ;, &&, ||, | and &, command substitutions left out."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    commands, current, depth = [], [], 0
    try:
        tokens = list(lexer)
    except ValueError:
        return []
    for token in tokens:
        if token.endswith("(") or token == "(":
            depth += 1
        elif token == ")":
            depth = max(0, depth - 1)
        elif depth == 0 and token in (";", "&&", "||", "|", "&"):
            commands.append(current)
            current = []
        elif depth == 0 and token != "$":
            current.append(token)
    return commands + [current]


def program(words):
    """The words from the program on: sudo and its user, env, VAR=value and timeout with its options are skipped."""
    i = 0
    while i < len(words):
        word = words[i]
        if word in ("sudo", "env"):
            i += 1
        elif word in ("-u", "--user", "-g", "--group"):
            i += 2
        elif re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", word) or (word.startswith("-") and i > 0 and words[i - 1] in ("sudo", "env")):
            i += 1
        elif word == "timeout":
            i += 1
            while i < len(words) and words[i].startswith("-"):
                i += 1
            i += 1  # the duration
        else:
            break
    return words[i:]


def check_host_block(binary, guide, body, line):
    problems = []
    parsed = subprocess.run(["bash", "-n"], input=body, capture_output=True, text=True)
    if parsed.returncode != 0:
        problems.append(f"bash cannot parse it: {parsed.stderr.strip()}")
    for command in command_lines(body):
        for path in re.findall(r"(?<![\w/])deploy/[\w.\-]+", command):
            if not os.path.exists(os.path.join(ROOT, path)):
                problems.append(f"{path} does not exist")
        for words in map(program, simple_commands(command)):
            if not words or os.path.basename(words[0]) != "linkrunway":
                continue
            verbs = [w for w in words[1:4] if not w.startswith("-")]
            for size in (3, 2, 1):
                help_text = subprocess.run([binary] + verbs[:size] + ["--help"], capture_output=True, text=True)
                if len(verbs) >= size and help_text.returncode == 0 and "Usage: linkrunway " + " ".join(verbs[:size]) in help_text.stdout:
                    break
            else:
                problems.append(f"`linkrunway {' '.join(verbs)}` is not a command")
                continue
            for flag in (w.split("=")[0] for w in words if w.startswith("--")):
                if re.search(rf"(^|\s){re.escape(flag)}(\s|$)", help_text.stdout, re.M) is None:
                    problems.append(f"`linkrunway {' '.join(verbs[:size])}` has no {flag}")
    return [f"{guide}:{line}: {problem}" for problem in problems]


def markdown_files():
    for folder, subfolders, files in os.walk(ROOT):
        subfolders[:] = [d for d in subfolders if not d.startswith(".") and d not in ("node_modules", "test-artifacts")]
        for name in files:
            if name.endswith(".md"):
                yield os.path.relpath(os.path.join(folder, name), ROOT)


def anchors(path):
    """The fragments GitHub gives the headings of a Markdown file."""
    text = FENCE.sub("", open(os.path.join(ROOT, path), encoding="utf-8").read())
    seen, result = {}, set()
    for heading in re.findall(r"^#{1,6} +(.+?) *#*$", text, re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        result.add(slug if slug not in seen else f"{slug}-{seen[slug]}")
        seen[slug] = seen.get(slug, 0) + 1
    return result


def check_links():
    """Every relative link (and image) of every Markdown file names a file that exists, and a heading of it."""
    problems = []
    for path in markdown_files():
        text = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), open(os.path.join(ROOT, path), encoding="utf-8").read())
        text = re.sub(r"`[^`\n]*`", "", text)
        for number, line in enumerate(text.splitlines(), 1):
            for target in re.findall(r"\]\(([^)\s]+)\)", line):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                    continue
                file_part, _, fragment = target.partition("#")
                linked = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
                if not os.path.exists(os.path.join(ROOT, linked)):
                    problems.append(f"{path}:{number}: {target} names no file")
                elif fragment and linked.endswith(".md") and fragment not in anchors(linked):
                    problems.append(f"{path}:{number}: {target} names no heading of {linked}")
    return problems


def main():
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build/debug/linkrunway"))
    problems, ran, checked = check_links(), 0, 0
    fake, apple_ads_url = start_fake_adservices(binary)
    try:
        for guide in sys.argv[2:] or GUIDES:
            runnable = []
            for language, body, line in blocks(guide):
                if language == "sh":
                    runnable.append((body, line))
                elif language == "bash":
                    problems += check_host_block(binary, guide, body, line)
                    checked += 1
            if runnable:
                run_guide(binary, guide, runnable, apple_ads_url)
                ran += len(runnable)
    finally:
        fake.send_signal(signal.SIGTERM)
        fake.wait(timeout=30)
    if problems:
        sys.exit("docs-check:\n" + "\n".join(problems))
    print(f"docs-check: {ran} blocks ran against a real server; {checked} blocks for the operator's machine checked "
          f"(bash syntax, linkrunway commands and flags, repository files); every relative link of the Markdown "
          f"files resolves")


if __name__ == "__main__":
    main()
