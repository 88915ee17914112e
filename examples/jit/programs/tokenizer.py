"""A hand-written tokenizer and recursive-descent evaluator for arithmetic expressions."""
from _size import scaled


def tokenize(src):
    tokens = []
    i = 0
    while i < len(src):
        ch = src[i]
        if ch.isspace():
            i += 1
        elif ch.isdigit():
            j = i
            while j < len(src) and src[j].isdigit():
                j += 1
            tokens.append(("num", int(src[i:j])))
            i = j
        elif ch in "+-*/()":
            tokens.append(("op", ch))
            i += 1
        else:
            raise SyntaxError("unexpected %r at %d" % (ch, i))
    return tokens


class Parser:
    def __init__(self, tokens):
        self.tokens = tokens
        self.pos = 0

    def peek(self):
        return self.tokens[self.pos] if self.pos < len(self.tokens) else (None, None)

    def expr(self):
        value = self.term()
        while self.peek()[1] in ("+", "-"):
            op = self.tokens[self.pos][1]
            self.pos += 1
            rhs = self.term()
            value = value + rhs if op == "+" else value - rhs
        return value

    def term(self):
        value = self.atom()
        while self.peek()[1] in ("*", "/"):
            op = self.tokens[self.pos][1]
            self.pos += 1
            rhs = self.atom()
            value = value * rhs if op == "*" else value // (rhs or 1)
        return value

    def atom(self):
        kind, val = self.tokens[self.pos]
        self.pos += 1
        if val == "(":
            value = self.expr()
            self.pos += 1
            return value
        return val


if __name__ == "__main__":
    total = 0
    for i in range(scaled(100_000)):
        src = "(%d + %d) * %d - %d / (%d + 1) + (%d * (%d - %d))" % (
            i, i % 17, i % 5, i * 3, i % 9, i % 11, i % 13, i % 7)
        total += Parser(tokenize(src)).expr()
    print(total)
