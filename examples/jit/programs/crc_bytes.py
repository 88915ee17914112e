"""CRC-32 by a 256-entry table over bytearrays, checked against zlib.crc32."""
from _size import scaled
import zlib


def make_table():
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (0xEDB88320 ^ (c >> 1)) if c & 1 else (c >> 1)
        table.append(c)
    return table


def crc32(data, table):
    crc = 0xFFFFFFFF
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


if __name__ == "__main__":
    table = make_table()
    block = bytearray((i * 131 + 7) & 0xFF for i in range(65_536))
    ok = 0
    for k in range(scaled(1200)):
        block[k] = k & 0xFF
        ok += crc32(block, table) == zlib.crc32(block)
    print(ok)
