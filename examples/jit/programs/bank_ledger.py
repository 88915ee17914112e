"""A toy bank: accounts, transfers and overdraft errors raised and handled as exceptions."""
from _size import scaled


class InsufficientFunds(Exception):
    def __init__(self, account, amount):
        super().__init__("account %d cannot pay %d" % (account.number, amount))
        self.account = account
        self.amount = amount


class Account:
    def __init__(self, number, balance):
        self.number = number
        self.balance = balance
        self.history = []

    def withdraw(self, amount):
        if amount > self.balance:
            raise InsufficientFunds(self, amount)
        self.balance -= amount
        self.history.append(-amount)

    def deposit(self, amount):
        self.balance += amount
        self.history.append(amount)


def simulate(n_transfers, n_accounts=500):
    accounts = [Account(i, 1000) for i in range(n_accounts)]
    seed = 12345
    refused = 0
    for _ in range(n_transfers):
        seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
        src = accounts[seed % n_accounts]
        dst = accounts[(seed >> 8) % n_accounts]
        amount = (seed >> 16) % 700
        try:
            src.withdraw(amount)
        except InsufficientFunds:
            refused += 1
            continue
        dst.deposit(amount)
        if len(src.history) > 64:
            del src.history[:32]
    return refused, sum(a.balance for a in accounts)


if __name__ == "__main__":
    print(*simulate(scaled(5_000_000)))
