"""Runs localstripe (PyPI, a stateful fake of the payment provider's API, not written here) on
127.0.0.1:PORT only, its state in memory.

localstripe's own command binds every interface and pickles its whole state to one shared file,
/tmp/localstripe.pickle, on every write: parallel tests would share it, and a provider reachable
from the network would be a fake anyone could pay into. This runs the same app, bound to
loopback, with nothing written to disk.

    .venv-payments/bin/python local/payment_provider.py PORT   (make dev and the tests run it)
"""

import logging
import os
import socket
import sys
import threading
import time

from aiohttp import web

import localstripe.resources
import localstripe.server


def exit_with_parent():
    """Ends this process when the one that started it (make dev, a test) is gone, even killed."""
    parent = os.getppid()
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


def main():
    port = int(sys.argv[1])
    threading.Thread(target=exit_with_parent, daemon=True).start()
    # State in memory only: each run owns its provider.
    localstripe.resources.Store.dump_to_disk = lambda self: None
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    logging.basicConfig(level=logging.WARNING)
    web.run_app(localstripe.server.app, sock=sock, access_log=None, print=None)


if __name__ == "__main__":
    main()
