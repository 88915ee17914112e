"""Warehouse inventory as nested dicts: receive, ship, reorder and value the stock."""
from _size import scaled


def run(n_events):
    stock = {}
    reorders = 0
    seed = 2024
    for _ in range(n_events):
        seed = (seed * 214013 + 2531011) & 0x7FFFFFFF
        warehouse = "wh%d" % (seed % 8)
        sku = "sku-%04d" % ((seed >> 4) % 2000)
        qty = (seed >> 16) % 20 + 1
        shelf = stock.setdefault(warehouse, {})
        item = shelf.get(sku)
        if item is None:
            item = shelf[sku] = {"qty": 0, "price": 1 + (seed >> 8) % 100, "moves": 0}
        if seed & 4:
            item["qty"] += qty
        elif item["qty"] >= qty:
            item["qty"] -= qty
        else:
            reorders += 1
            item["qty"] += 50
        item["moves"] += 1
    value = sum(i["qty"] * i["price"] for shelf in stock.values() for i in shelf.values())
    return reorders, value


if __name__ == "__main__":
    print(*run(scaled(700_000)))
