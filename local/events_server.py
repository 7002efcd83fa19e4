"""Runs moto's server (PyPI, EventBridge, SQS and SES v2 in one process, not written here) on
127.0.0.1:PORT, ended with the process that started it.

moto's own `moto_server` command outlives its parent: a make dev killed with SIGKILL, or a test
binary that exits without dropping its stand-in, would leave one server per run behind.

    .venv-events/bin/python local/events_server.py PORT   (make dev and the tests run it)
"""

import os
import sys
import threading
import time

from moto.server import main as moto_main


def exit_with_parent():
    """Ends this process when the one that started it (make dev, a test) is gone, even killed."""
    parent = os.getppid()
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


def main():
    port = sys.argv[1]
    threading.Thread(target=exit_with_parent, daemon=True).start()
    moto_main(["-H", "127.0.0.1", "-p", port])


if __name__ == "__main__":
    main()
