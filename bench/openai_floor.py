"""The floor of an LLM run through the `openai` client (bench_endpoint.py case a/c): a bare script
that imports openai, makes an AsyncOpenAI client and posts the given chat bodies, N at a time,
keeping nothing -- what any tool built on the client pays before doing its own work.

Run: python bench/openai_floor.py BASE_URL BODIES.json CONNECTIONS"""

import asyncio
import json
import sys

from openai import AsyncOpenAI


async def main(url: str, bodies: list[dict], connections: int) -> None:
    client = AsyncOpenAI(base_url=url, api_key="not-a-real-key", max_retries=4)
    gate = asyncio.Semaphore(connections)

    async def one(body: dict) -> None:
        async with gate:
            await client.post("/chat/completions", body=body, cast_to=object)

    await asyncio.gather(*(one(b) for b in bodies))
    await client.close()


if __name__ == "__main__":
    with open(sys.argv[2], encoding="utf-8") as f:
        asyncio.run(main(sys.argv[1], json.load(f), int(sys.argv[3])))
