#!/usr/bin/env python3
"""Times TCP transfers over loopback to one port, to check what scripts/slowlink.sh shapes.

For each size, one fresh connection to 127.0.0.1:PORT (a listener in this process):
  oneway: the client sends SIZE bytes; the time runs until the server has all of them.
  both:   client and server each send SIZE bytes at once; each direction is timed until
          its receiver has all bytes (shows full vs half duplex).
Prints one line per size and direction: "<dir> <bytes> <seconds> <MB/s>" (MB = 1e6 bytes).
--src-port binds the client (SRC, SRC+1, ... one per size) so that its port is known:
an ephemeral port could fall into the shaped range by chance.
"""
import argparse
import socket
import sys
import threading
import time

CHUNK = 1 << 20


def parse_size(text):
    units = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    text = text.strip().upper().removesuffix("IB").removesuffix("B")
    unit = text[-1] if text and text[-1] in "KMG" else ""
    number = text[: len(text) - len(unit)]
    if not number.isdigit():
        raise argparse.ArgumentTypeError(f"expected a size like 32M, got {text!r}")
    return int(number) * units[unit]


def send_all(sock, size):
    block = b"\x5a" * CHUNK
    left = size
    while left > 0:
        n = sock.send(memoryview(block)[: min(left, CHUNK)])
        left -= n


def recv_all(sock, size, done):
    got = 0
    while got < size:
        data = sock.recv(min(size - got, 4 * CHUNK))
        if not data:
            raise RuntimeError(f"connection closed after {got} of {size} bytes")
        got += len(data)
    done.append(time.perf_counter())


def one_transfer(port, src_port, size, both):
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(1)
    client = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    client.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if src_port:
        client.bind(("127.0.0.1", src_port))
    client.connect(("127.0.0.1", port))
    server, _ = listener.accept()
    listener.close()

    to_server, to_client = [], []
    threads = [threading.Thread(target=recv_all, args=(server, size, to_server))]
    if both:
        threads.append(threading.Thread(target=recv_all, args=(client, size, to_client)))
        threads.append(threading.Thread(target=send_all, args=(server, size)))
    start = time.perf_counter()
    for t in threads:
        t.start()
    send_all(client, size)
    for t in threads:
        t.join()
    server.close()  # the server closes first, so its end keeps TIME_WAIT, not the bound client port
    client.close()
    if not to_server or (both and not to_client):
        raise RuntimeError("a receiver failed")
    results = [("c2s", to_server[0] - start)]
    if both:
        results.append(("s2c", to_client[0] - start))
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True, help="server port")
    parser.add_argument("--src-port", type=int, default=0, help="first client port (0: ephemeral)")
    parser.add_argument("--sizes", default="1M,4M,16M,64M", help="comma-separated sizes")
    parser.add_argument("--mode", choices=["oneway", "both"], default="oneway")
    args = parser.parse_args()
    sizes = [parse_size(s) for s in args.sizes.split(",")]
    for i, size in enumerate(sizes):
        src = args.src_port + i if args.src_port else 0
        for direction, seconds in one_transfer(args.port, src, size, args.mode == "both"):
            print(f"{direction} {size} {seconds:.6f} {size / seconds / 1e6:.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
