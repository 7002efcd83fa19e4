#!/usr/bin/env python3
"""`make contract`: schemathesis against a fresh `make dev`, from the contract it serves.

Starts store-local on free ports with its own data file, mints a staff token with
store-token, runs schemathesis with api/schemathesis.toml (every default check, negative-data
rejection, 200 examples per operation and phase), then counts the requests each operation of
api/openapi.yaml received and fails if any that takes input (a parameter or a body) got fewer
than 200, or if schemathesis failed.
SCHEMATHESIS_SEED picks another seed (the default is fixed, so a failure replays).
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import urllib.parse
import urllib.request
from collections import Counter
from pathlib import Path

from store_local import ROOT, TARGET, free_port, wait_for

MIN_REQUESTS = 200


def operations(document: dict) -> list[tuple[str, re.Pattern, bool]]:
    """Each operation of the contract, a pattern matching the request paths it serves, and
    whether it takes any input (a parameter or a body)."""
    found = []
    for path, item in document["paths"].items():
        pattern = re.compile("^" + re.sub(r"\{[^/]+\}", "[^/]+", path) + "$")
        for method, operation in item.items():
            if method != "parameters":
                takes = bool(item.get("parameters") or operation.get("parameters")
                             or operation.get("requestBody"))
                found.append((f"{method.upper()} {path}", pattern, takes))
    return found


def main() -> int:
    schemathesis = shutil.which("schemathesis") or str(ROOT / ".venv/bin/schemathesis")
    workdir = Path(tempfile.mkdtemp(prefix="store-contract-"))
    api_port, dynamodb_port = free_port(), free_port()
    env = dict(
        os.environ,
        STORE_DATA_FILE=str(workdir / "store.db"),
        API_PORT=str(api_port),
        DYNAMODB_PORT=str(dynamodb_port),
        # make dev's payment provider and its events' server, on ports of their own too.
        PAYMENT_PORT=str(free_port()),
        EVENTS_PORT=str(free_port()),
        RUST_LOG=os.environ.get("RUST_LOG", "warn"),
    )
    base = f"http://127.0.0.1:{api_port}"
    log = open(workdir / "store-local.log", "w")
    server = subprocess.Popen([TARGET / "store-local"], env=env, stdout=log, stderr=log, cwd=ROOT)
    try:
        wait_for(f"{base}/openapi.json", 60)
        token = subprocess.run(
            [TARGET / "store-token", "--staff"], env=env, check=True, capture_output=True, text=True
        ).stdout.strip()
        har = workdir / "requests.har"
        seed = os.environ.get("SCHEMATHESIS_SEED", "20261130")
        command = [
            schemathesis, "--config-file", str(ROOT / "api/schemathesis.toml"), "--no-color",
            "run", f"{base}/openapi.json", "--url", base,
            "-H", f"Authorization: Bearer {token}",
            "--seed", seed,
            "--report", "har", "--report-har-path", str(har),
        ]
        print("schemathesis", " ".join(command[3:6]), f"--seed {seed}", flush=True)
        result = subprocess.run(command, cwd=workdir)
        with urllib.request.urlopen(f"{base}/openapi.json") as reply:
            document = json.load(reply)
        counts: Counter = Counter()
        known = operations(document)
        for entry in json.loads(har.read_text())["log"]["entries"]:
            request = entry["request"]
            path = urllib.parse.urlsplit(request["url"]).path
            for name, pattern, _ in known:
                if name.split(" ", 1)[0] == request["method"] and pattern.match(path):
                    counts[name] += 1
                    break
        print("\nrequests per operation:")
        short = []
        for name, _, takes_input in known:
            # An operation that takes no input (GET /categories) has one request to make:
            # schemathesis sends it a few times, headers varied; nothing more can be generated.
            print(f"  {counts[name]:6d}  {name}" + ("" if takes_input else "  (takes no input)"))
            if counts[name] < MIN_REQUESTS and takes_input:
                short.append(name)
        if short:
            print(f"fewer than {MIN_REQUESTS} requests: {', '.join(short)}", file=sys.stderr)
            return 1
        if result.returncode != 0:
            print(f"schemathesis failed (log of make dev: {workdir / 'store-local.log'})", file=sys.stderr)
            return result.returncode
        shutil.rmtree(workdir, ignore_errors=True)
        return 0
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()


if __name__ == "__main__":
    sys.exit(main())
