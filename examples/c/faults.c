/* Faults the probe must survive: an exit without an entry, and a region still open at exit. */
#include "metron_probe.h"

int main(void) {
    metron_probe_init();
    metron_probe_exit("never_entered");
    metron_probe_enter("left_open");
    metron_probe_enter_id(123456789u); /* an id never registered: ignored */
    return 0;
}
