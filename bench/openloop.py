"""An open-loop load generator: requests are sent at a fixed rate, whatever the server's pace, and each latency is
counted from the moment its request was due, not from when a free connection sent it (a closed loop such as wrk's
waits for answers before sending more, so it measures queueing, not latency, once the server falls behind)."""
import asyncio
import time


async def _run(host, port, rate, seconds, make_request, connections):
    loop = asyncio.get_running_loop()
    total = int(rate * seconds)
    start = loop.time() + 0.5
    due = asyncio.Queue()
    for i in range(total):
        due.put_nowait((i, start + i / rate))
    latencies, failures = [], []

    async def read_response(reader):
        head = await reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        if length:
            await reader.readexactly(length)
        return status

    async def worker():
        reader, writer = await asyncio.open_connection(host, port)
        try:
            while not due.empty():
                i, when = due.get_nowait()
                wait = when - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                writer.write(make_request(i))
                status = await read_response(reader)
                latencies.append(loop.time() - when)
                if status >= 400:
                    failures.append(status)
        finally:
            writer.close()

    began = time.time()
    await asyncio.gather(*(worker() for _ in range(connections)))
    elapsed = time.time() - began - 0.5
    latencies.sort()

    def percentile(p):
        return round(latencies[min(len(latencies) - 1, int(len(latencies) * p))] * 1000, 3)

    return {"offered_per_second": rate, "requests": len(latencies), "requests_per_second": round(len(latencies) / max(elapsed, 1e-9), 1),
            "p50_ms": percentile(0.50), "p90_ms": percentile(0.90), "p99_ms": percentile(0.99), "max_ms": round(latencies[-1] * 1000, 3),
            "non_2xx": len(failures), "connections": connections}


def run(host, port, rate, seconds, make_request, connections=32):
    """Sends `rate * seconds` requests (`make_request(i)` gives request i's bytes) at `rate` a second over
    `connections` keep-alive connections; returns throughput and latency percentiles."""
    return asyncio.run(_run(host, port, rate, seconds, make_request, connections))
