"""A tiny stack-based virtual machine interpreting a bytecode program (dispatch loop)."""
from _size import scaled

PUSH, ADD, SUB, MUL, MOD, DUP, SWAP, JNZ, POP, LOAD, STORE, HALT = range(12)


def assemble(n):
    # acc = 0; i = n; while i: acc = (acc + i * 3) % 1000003; i -= 1
    return [
        PUSH, 0, STORE, 0,           # acc
        PUSH, n, STORE, 1,           # i
        LOAD, 0, LOAD, 1, PUSH, 3, MUL, ADD, PUSH, 1000003, MOD, STORE, 0,
        LOAD, 1, PUSH, 1, SUB, DUP, STORE, 1,
        JNZ, 8,
        LOAD, 0, HALT,
    ]


def run(code):
    stack = []
    regs = [0] * 4
    pc = 0
    while True:
        op = code[pc]
        if op == PUSH:
            stack.append(code[pc + 1])
            pc += 2
        elif op == ADD:
            b = stack.pop()
            stack.append(stack.pop() + b)
            pc += 1
        elif op == SUB:
            b = stack.pop()
            stack.append(stack.pop() - b)
            pc += 1
        elif op == MUL:
            b = stack.pop()
            stack.append(stack.pop() * b)
            pc += 1
        elif op == MOD:
            b = stack.pop()
            stack.append(stack.pop() % b)
            pc += 1
        elif op == DUP:
            stack.append(stack[-1])
            pc += 1
        elif op == SWAP:
            stack[-1], stack[-2] = stack[-2], stack[-1]
            pc += 1
        elif op == POP:
            stack.pop()
            pc += 1
        elif op == LOAD:
            stack.append(regs[code[pc + 1]])
            pc += 2
        elif op == STORE:
            regs[code[pc + 1]] = stack.pop()
            pc += 2
        elif op == JNZ:
            pc = code[pc + 1] if stack.pop() else pc + 2
        elif op == HALT:
            return stack.pop()
        else:
            raise ValueError("bad opcode %r at %d" % (op, pc))


if __name__ == "__main__":
    print(run(assemble(scaled(4_000_000))))
