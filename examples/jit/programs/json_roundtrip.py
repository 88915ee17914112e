"""Build nested records, serialise them with json, parse them back and aggregate."""
from _size import scaled
import json


def make_record(i):
    return {
        "id": i,
        "name": "user%05d" % i,
        "tags": ["t%d" % (i % 7), "t%d" % (i % 11)],
        "scores": [((i * k) % 97) / 3.0 for k in range(5)],
        "active": i % 3 != 0,
    }


def roundtrip(n):
    total = 0.0
    active = 0
    for start in range(0, n, 200):
        batch = [make_record(i) for i in range(start, min(n, start + 200))]
        text = json.dumps(batch)
        for rec in json.loads(text):
            total += sum(rec["scores"])
            active += rec["active"]
    return active, total


if __name__ == "__main__":
    print(*roundtrip(scaled(60_000)))
