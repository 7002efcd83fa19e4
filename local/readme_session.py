#!/usr/bin/env python3
"""`make readme-session` (part of `make test`): the README's console blocks, run as a newcomer
pastes them, against a fresh `make dev` on ports of its own.

Each `$ ` line (with its `\\` continuations) is run by bash in the repository, in order, the
variables it sets (`C1`, `STAFF`, `ORDER`, `RET`) kept for the next; `localhost:3000` and `127.0.0.1:8000`
are moved to this run's ports. What the README shows under a command is compared with what it
printed: literally, `...` standing for anything (a wrapped answer's lines are one line). A comment
says the rest: `# 403: ...` is the HTTP status of a curl, `(exit 2)` the command's exit status,
`"status":"EXPIRED"` or `{...}` in it what the output holds. `make dev` itself is this run's
store (`HOLD_MINUTES=0.1 make dev` restarts it so, on the same data file). A command whose
program this machine lacks (the AWS CLI) is reported as skipped; anything else that differs
fails, each difference listed. `SHOW=1` prints what each command printed.
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from store_local import ROOT, TARGET, free_port, wait_for

KEPT = ("C1", "STAFF", "ORDER", "RET")
ASSIGNMENT = re.compile(r"^[A-Z_][A-Z0-9_]*=")
PROGRAM = re.compile(r"^[a-z][a-z0-9_-]*$")
# A terminal, as the README's reader has: `make -s query` draws its table there, and what a
# command writes to stderr shows among what it prints.
TERMINAL = shutil.which("script")
if TERMINAL and subprocess.run([TERMINAL, "-qefc", "true", "/dev/null"], capture_output=True,
                               stdin=subprocess.DEVNULL).returncode != 0:
    TERMINAL = None  # no pseudo-terminal here


def split_comment(line: str) -> tuple[str, str]:
    """A shell line's code and its comment (a `#` after blank space, outside quotes)."""
    quote = None
    for i, c in enumerate(line):
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip(), line[i + 1:].strip()
    return line.rstrip(), ""


class Step:
    def __init__(self, code: str, comment: str, expected: list[str], where: int):
        self.code, self.comment, self.expected, self.where = code, comment, expected, where


def steps(readme: str) -> list[Step]:
    """Each command of the console blocks of the README's first session, with its comment and
    the lines shown under it."""
    found = []
    lines = readme.splitlines()
    start = lines.index("## A first session")
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("## "))
    lines = [""] * start + lines[start:end]
    inside = False
    current = None
    continued = False
    for number, line in enumerate(lines, 1):
        if line.startswith("```"):
            inside = line.strip() == "```console"
            current, continued = None, False
            continue
        if not inside:
            continue
        if continued and current is not None:
            code, comment = split_comment(line)
            continued = code.endswith("\\")
            current.code += "\n" + code
            current.comment = " ".join(c for c in (current.comment, comment) if c)
            continue
        if line.startswith("$ "):
            code, comment = split_comment(line[2:])
            continued = code.endswith("\\")
            current = Step(code, comment, [], number)
            found.append(current)
        elif current is not None and line.strip() and not line.lstrip().startswith("#"):
            current.expected.append(line.strip())
    return found


def matches(pattern: str, text: str) -> bool:
    """Whether `text` is `pattern`, each `...` of it standing for anything."""
    parts = pattern.split("...")
    if len(parts) == 1:
        return text == pattern
    if not text.startswith(parts[0]) or not text.endswith(parts[-1]):
        return False
    at = len(parts[0])
    for part in parts[1:-1]:
        found = text.find(part, at)
        if found < 0:
            return False
        at = found + len(part)
    return at <= len(text) - len(parts[-1])


class Store:
    """`make dev`'s store-local on this run's ports and data file."""

    def __init__(self, workdir: Path):
        self.workdir = workdir
        # A reader pastes the commands into a shell of their own, not under make (run from
        # `make test`, a nested make would print "Entering directory" into `$(make -s token)`).
        outside = {k: v for k, v in os.environ.items()
                   if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "MAKE_TERMOUT",
                                "MAKE_TERMERR")}
        self.env = dict(
            outside,
            STORE_DATA_FILE=str(workdir / "store.db"),
            API_PORT=str(free_port()),
            DYNAMODB_PORT=str(free_port()),
            PAYMENT_PORT=str(free_port()),
            EVENTS_PORT=str(free_port()),
            RUST_LOG=os.environ.get("RUST_LOG", "warn"),
        )
        self.server = None

    def start(self, settings: dict) -> None:
        self.stop()
        log = open(self.workdir / "store-local.log", "a")
        env = dict(self.env, **settings)
        self.server = subprocess.Popen([TARGET / "store-local"], env=env, stdout=log, stderr=log, cwd=ROOT)
        wait_for(f"http://127.0.0.1:{self.env['API_PORT']}/openapi.json", 60)

    def stop(self) -> None:
        if self.server is not None:
            self.server.send_signal(signal.SIGINT)
            try:
                self.server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.server.kill()
            self.server = None


def moved(code: str, env: dict) -> str:
    return (code.replace("localhost:3000", f"localhost:{env['API_PORT']}")
            .replace("127.0.0.1:3000", f"127.0.0.1:{env['API_PORT']}")
            .replace("127.0.0.1:8000", f"127.0.0.1:{env['DYNAMODB_PORT']}"))


def run(step: Step, store: Store, state: Path) -> list[str]:
    """Runs `step`: what differs from what the README shows, or why it was skipped."""
    dev = re.fullmatch(r"((?:[A-Z_]+=\S+\s+)*)make dev", step.code.strip())
    if dev:
        settings = dict(pair.split("=", 1) for pair in dev.group(1).split())
        store.start(settings)
        return []
    words = [w for w in step.code.replace("\\", " ").split() if not ASSIGNMENT.match(w)]
    if words and PROGRAM.match(words[0]) and not shutil.which(words[0]):
        return [f"skipped: this machine has no {words[0]}"]
    if not TERMINAL and step.expected and "make -s query" in step.code:
        return ["skipped: no terminal here, and the table is drawn on one"]
    status = re.match(r"(\d{3})\b", step.comment)
    code = moved(step.code, store.env)
    if status and code.lstrip().startswith("curl "):
        code += " -w '\\n%{http_code}'"
    script = (f"[ -f {state} ] && . {state}\n{code}\nrc=$?\n"
              f"declare -p {' '.join(KEPT)} > {state} 2>/dev/null\nexit $rc\n")
    (state.parent / "step.sh").write_text(script)
    command = ["bash", str(state.parent / "step.sh")]
    if TERMINAL:
        command = [TERMINAL, "-qefc", " ".join(command), "/dev/null"]
    done = subprocess.run(command, cwd=ROOT, env=dict(store.env, COLUMNS="200"),
                          capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL)
    out = "\n".join(line.strip() for line in done.stdout.splitlines() if line.strip())
    if os.environ.get("SHOW"):
        print(f"      printed {out[:1200]}")
    problems = []
    if status and code.lstrip().startswith("curl "):
        body, _, got = out.rpartition("\n")
        out = body if body or got.isdigit() else out
        if got != status.group(1):
            problems.append(f"HTTP {got}, the README says {status.group(1)}")
    want_exit = re.search(r"\(exit (\d+)\)", step.comment)
    if done.returncode != (int(want_exit.group(1)) if want_exit else 0):
        problems.append(f"exit {done.returncode}: {done.stderr.strip()[-400:]}")
    if step.expected:
        shown = "".join(step.expected)
        if not matches(shown, out.replace("\n", "")):
            problems.append(f"printed {out[:600]!r}\n      README shows {shown!r}")
    for fragment in re.findall(r'\{.*\}|"[A-Za-z]+":"[^"]*"', step.comment):
        if not matches(fragment if fragment.startswith("{") else "..." + fragment + "...", out):
            problems.append(f"printed {out[:600]!r}\n      the comment says {fragment!r}")
    return problems


def main() -> int:
    workdir = Path(tempfile.mkdtemp(prefix="store-readme-"))
    store = Store(workdir)
    state = workdir / "state.sh"
    failed = skipped = 0
    try:
        store.start({})
        all_steps = steps((ROOT / "README.md").read_text(encoding="utf-8"))
        for step in all_steps:
            problems = run(step, store, state)
            first = step.code.splitlines()[0][:90]
            if problems and problems[0].startswith("skipped"):
                skipped += 1
                print(f"  skip README.md:{step.where}  {first}  ({problems[0]})")
            elif problems:
                failed += 1
                print(f"  FAIL README.md:{step.where}  {first}")
                for problem in problems:
                    print(f"      {problem}")
            else:
                print(f"  ok   README.md:{step.where}  {first}")
        print(f"README session: {len(all_steps)} commands, {failed} differ, {skipped} skipped")
    finally:
        store.stop()
    if failed:
        print(f"(make dev's log: {workdir / 'store-local.log'})", file=sys.stderr)
        return 1
    shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
