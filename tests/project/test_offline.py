"""No test reaches the network (conftest's `no_network`): a connection anywhere but loopback is
refused in the test process, and every process a test starts finds the hub and `datasets` offline."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest


def test_a_connection_off_this_machine_is_refused_before_it_is_made():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        with pytest.raises(OSError, match="tests never reach the network"):
            s.connect(("192.0.2.1", 443))  # TEST-NET-1: never routed
    with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s:
        with pytest.raises(OSError, match="tests never reach the network"):
            s.connect_ex(("2001:db8::1", 443, 0, 0))


def test_loopback_is_reachable():
    server = socket.create_server(("127.0.0.1", 0))
    with server, socket.create_connection(server.getsockname(), timeout=5):
        pass


def test_processes_a_test_starts_find_the_hub_offline():
    code = "import os; print(os.environ.get('HF_HUB_OFFLINE'), os.environ.get('HF_DATASETS_OFFLINE'))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ.copy())
    assert out.stdout.split() == ["1", "1"]
