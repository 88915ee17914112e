"""Build an HTML table report with str.format, f-strings and join; escape special characters."""
from _size import scaled

ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}


def escape(s):
    return "".join(ESCAPES.get(c, c) for c in s)


def render(rows):
    parts = ["<table>"]
    for i, (name, qty, price) in enumerate(rows):
        cls = "odd" if i % 2 else "even"
        parts.append(f'<tr class="{cls}"><td>{escape(name)}</td>'
                     "<td>{:>6d}</td><td>{:10.2f}</td></tr>".format(qty, price))
    parts.append("</table>")
    return "\n".join(parts)


if __name__ == "__main__":
    rows = [("item <%d> & co" % i, i % 97, i * 1.25) for i in range(2000)]
    size = 0
    for _ in range(scaled(40)):
        size += len(render(rows))
    print(size)
