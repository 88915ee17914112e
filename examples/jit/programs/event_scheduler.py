"""A discrete-event simulation of a queueing system: events as objects in a heap."""
from _size import scaled
import heapq


class Event:
    __slots__ = ("time", "kind", "customer")

    def __init__(self, time, kind, customer):
        self.time, self.kind, self.customer = time, kind, customer

    def __lt__(self, other):
        return self.time < other.time


class Simulation:
    def __init__(self, servers):
        self.free = servers
        self.queue = []
        self.events = []
        self.clock = 0.0
        self.waited = 0.0
        self.seed = 17

    def rand(self):
        self.seed = (self.seed * 1103515245 + 12345) & 0x7FFFFFFF
        return self.seed / 0x7FFFFFFF

    def schedule(self, delay, kind, customer):
        heapq.heappush(self.events, Event(self.clock + delay, kind, customer))

    def run(self, customers):
        for c in range(customers):
            self.schedule(c * 0.9 + self.rand(), "arrive", c)
        arrivals = {}
        while self.events:
            ev = heapq.heappop(self.events)
            self.clock = ev.time
            if ev.kind == "arrive":
                arrivals[ev.customer] = ev.time
                if self.free:
                    self.free -= 1
                    self.schedule(1.5 + self.rand(), "leave", ev.customer)
                else:
                    self.queue.append(ev.customer)
            else:
                if self.queue:
                    nxt = self.queue.pop(0)
                    self.waited += self.clock - arrivals[nxt]
                    self.schedule(1.5 + self.rand(), "leave", nxt)
                else:
                    self.free += 1
        return self.waited / customers


if __name__ == "__main__":
    print("%.4f" % Simulation(2).run(scaled(250_000)))
