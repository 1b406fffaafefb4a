"""A TCP forwarder: ``python -m tests.reliability.forward TARGET_HOST:PORT LISTEN_HOST:PORT...``.

The several-hosts test runs it in the root namespace so that hosts in their own namespaces
reach the machine's PostgreSQL, which listens on 127.0.0.1 only. It passes bytes both ways and
nothing else; a host's link is cut on the veth, not here. It prints ``ready`` once listening.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            writer.close()


async def main(target: str, listen: list[str]) -> None:
    host, port = target.rsplit(":", 1)

    async def serve(client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        try:
            server_reader, server_writer = await asyncio.open_connection(host, int(port))
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(_pump(client_reader, server_writer), _pump(server_reader, client_writer))

    servers = []
    for address in listen:
        listen_host, listen_port = address.rsplit(":", 1)
        servers.append(await asyncio.start_server(serve, listen_host, int(listen_port)))
    print("ready", flush=True)
    await asyncio.gather(*(s.serve_forever() for s in servers))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2:]))
