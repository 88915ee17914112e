#!/usr/bin/env python3
# Writes a large C program (many kernels with loop nests and ifs) for measuring how long
# `metron static` takes on a ~10 MB binary with DWARF against one callgrind run
# (docs/static-accuracy.md, "Analysis time").
# Usage: python3 examples/static/gen_large.py 3000 > /tmp/large.c
#        gcc -g -O0 /tmp/large.c -o /tmp/large && ls -l /tmp/large
# The kernels repeat 15 loop-nest shapes (modulus k % 5 + 2, stride k % 3 + 1), as code
# written from a few patterns does; with --distinct every kernel's inner bound differs
# (`j <= n + 2 + k`), so that no two nests have the same count (no reuse of counts).
import sys

args = [a for a in sys.argv[1:] if not a.startswith("--")]
distinct = "--distinct" in sys.argv[1:]
count = int(args[0]) if args else 3000
print("#include <stdio.h>\n#include <stdlib.h>\n")
for k in range(count):
    print(f"""double kernel_{k}(double *x, double *y, int n) {{
    double s = {k}.0;
    for (int i = 1; i <= n; i++)
        for (int j = i + 1; j <= n + {2 + k if distinct else 2}; j++) {{
            if (j % {k % 5 + 2} != 0) {{
                s += x[i] * y[j] + {k % 7}.5;
                y[j] = s * 0.5;
            }} else {{
                s -= x[j] / (y[i] + 1.0);
            }}
        }}
    for (int i = 0; i < n; i += {k % 3 + 1})
        x[i] = x[i] * 0.25 + y[i] * {k % 11}.0;
    return s;
}}
""")
print("int main(int argc, char **argv) {")
print("    int n = argc > 1 ? atoi(argv[1]) : 4;")
print("    double *x = calloc(n + 3, sizeof(double)), *y = calloc(n + 3, sizeof(double));")
print("    double s = 0.0;")
for k in range(count):
    print(f"    s += kernel_{k}(x, y, n);")
print('    printf("%f\\n", s);\n    return 0;\n}')
