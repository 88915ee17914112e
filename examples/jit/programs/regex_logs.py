"""Scan generated web-server log lines with regular expressions and tally status codes."""
from _size import scaled
import re

LINE = re.compile(r'^(\d+\.\d+\.\d+\.\d+) - - \[([^\]]+)\] "(GET|POST) (\S+) HTTP/1\.1" (\d{3}) (\d+)$')
PATHS = ["/", "/index.html", "/api/items", "/api/items/42", "/login", "/static/app.js"]


def make_line(i):
    return '10.0.%d.%d - - [24/Nov/2026:01:%02d:%02d +0000] "%s %s HTTP/1.1" %d %d' % (
        i % 256, (i * 7) % 256, i % 60, (i * 3) % 60,
        "GET" if i % 5 else "POST", PATHS[i % len(PATHS)],
        (200, 200, 304, 404, 500)[i % 5], (i * 37) % 5000)


def tally(n):
    status = {}
    bytes_sent = 0
    for i in range(n):
        m = LINE.match(make_line(i))
        if m is None:
            continue
        code = m.group(5)
        status[code] = status.get(code, 0) + 1
        bytes_sent += int(m.group(6))
    return status, bytes_sent


if __name__ == "__main__":
    status, sent = tally(scaled(150_000))
    print(sorted(status.items()), sent)
