"""Shared by the programs of this directory: the size factor given as the first argument."""
import sys


def scaled(base):
    """`base` times the size factor of argv[1] (default 1.0), at least 1."""
    factor = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
    return max(1, int(base * factor))
