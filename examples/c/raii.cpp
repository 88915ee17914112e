// The C++ RAII wrapper: regions close when an exception unwinds through them.
#include <cstdio>
#include <stdexcept>

#include "metron_probe.h"

static void work(int i) {
    METRON_REGION("work");
    if (i == 2) throw std::runtime_error("unwinding through a region");
}

int main() {
    metron_probe_init();
    METRON_REGION("main");
    int caught = 0;
    for (int i = 0; i < 5; i++) {
        try {
            work(i);
        } catch (const std::exception &) {
            caught++;
        }
    }
    std::printf("caught %d\n", caught);
    return 0;
}
