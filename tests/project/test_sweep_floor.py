"""bench/sweep_floor.py, the bare client the sweep's benchmark measures itself against, asks what a
sweep asks: each body once a sample, each 429 again, each model within its connections. A floor
that asked less would flatter the tool's ratio to it; one that asked more would hide its cost."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

from llm_server import LLMServer, Reply, chat

FLOOR = Path(__file__).resolve().parents[2] / "bench" / "sweep_floor.py"


def test_the_floor_asks_each_body_once_a_sample_and_each_429_again(tmp_path):
    seen: set[str] = set()
    lock = threading.Lock()
    inflight: Counter = Counter()
    most: Counter = Counter()

    def script(body, n):  # every third request, when it is a body's first, is refused
        key, model = json.dumps(body, sort_keys=True), body["model"]
        with lock:
            first = key not in seen
            seen.add(key)
            inflight[model] += 1
            most[model] = max(most[model], inflight[model])
        time.sleep(0.02)  # the reply's time, counted in flight
        with lock:
            inflight[model] -= 1
        return Reply(429, {"error": {"message": "slow down"}}) if first and n % 3 == 0 else chat("1")

    models = [[{"model": m, "messages": [{"role": "user", "content": f"question {q}"}]} for q in range(5)]
              for m in ("a", "b")]
    bodies = tmp_path / "bodies.json"
    bodies.write_text(json.dumps(models), "utf-8")
    with LLMServer(script) as server:
        out = subprocess.run([sys.executable, str(FLOOR), server.url, str(bodies), "2", "3"],
                             capture_output=True, text=True, timeout=120)
        asked = Counter(json.dumps(b, sort_keys=True) for b in server.requests)
    assert out.returncode == 0, out.stderr[-2000:]
    refused = sum(1 for k in seen if asked[k] > 3)
    assert refused > 0 and len(asked) == 10
    assert sorted(asked.values()) == sorted([3] * (10 - refused) + [4] * refused)
    assert max(most.values()) <= 2
