"""The floor of a sweep on this machine and endpoint (bench_sweep.py --floor): a bare aiohttp
client posting the sweep's chat bodies -- each model on its own N connections, sample by sample,
a 429 asked again after the sweep's first backoff (0.375-0.5 s, its connection given up
meanwhile) -- keeping nothing. What the endpoint and the machine allow any Python client; the
sweep's wall time over this one's is what the tool itself costs.

Run: python bench/sweep_floor.py BASE_URL BODIES.json CONNECTIONS SAMPLES
(BODIES.json: a list per model of the chat bodies of its questions)"""

import asyncio
import json
import random
import sys

import aiohttp


async def main(url: str, models: list[list[dict]], connections: int, samples: int) -> None:
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        async def one(gate: asyncio.Semaphore, body: dict) -> None:
            await gate.acquire()
            try:
                while True:
                    async with session.post(url + "/chat/completions", json=body,
                                            headers={"Authorization": "Bearer not-a-real-key"}) as r:
                        await r.read()
                    if r.status != 429:
                        return
                    gate.release()
                    try:
                        await asyncio.sleep(0.5 * random.uniform(0.75, 1.0))
                    finally:
                        await gate.acquire()
            finally:
                gate.release()

        async def model(bodies: list[dict]) -> None:
            gate = asyncio.Semaphore(connections)
            await asyncio.gather(*(one(gate, b) for _ in range(samples) for b in bodies))

        await asyncio.gather(*(model(b) for b in models))


if __name__ == "__main__":
    with open(sys.argv[2], encoding="utf-8") as f:
        asyncio.run(main(sys.argv[1], json.load(f), int(sys.argv[3]), int(sys.argv[4])))
