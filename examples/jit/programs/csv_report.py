"""Parse CSV-like lines, group by region and product, and print a sorted summary."""
from _size import scaled

REGIONS = ["north", "south", "east", "west", "central"]
PRODUCTS = ["widget", "gadget", "doohickey", "gizmo", "sprocket", "flange"]


def make_lines(n):
    lines = []
    for i in range(n):
        region = REGIONS[i % len(REGIONS)]
        product = PRODUCTS[(i * 7) % len(PRODUCTS)]
        qty = (i * 31) % 17 + 1
        price = ((i * 13) % 1000) / 10.0
        lines.append("%d,%s,%s,%d,%.2f" % (i, region, product, qty, price))
    return lines


def summarise(lines):
    totals = {}
    for line in lines:
        _, region, product, qty, price = line.split(",")
        key = (region, product)
        revenue = int(qty) * float(price)
        if key in totals:
            count, total = totals[key]
            totals[key] = (count + 1, total + revenue)
        else:
            totals[key] = (1, revenue)
    rows = sorted(totals.items(), key=lambda kv: -kv[1][1])
    return ["%-8s %-10s %6d %12.2f" % (r, p, c, t) for (r, p), (c, t) in rows]


if __name__ == "__main__":
    report = summarise(make_lines(scaled(400_000)))
    print(len(report), report[0])
