/*
 * raid_modules.c - the library's module list: the parts above the core that this build has,
 * each registering what it gives the core (levels, backends, the recovery service and its
 * option rows). The one file that names every part; the core names none (raid/README.md).
 *
 * It runs before main() and before any constructor without a priority (the fio adapter's
 * builds fio's option array from the complete table when fio loads the engine). It is linked
 * as an object beside libraid.a (the Makefile's LIBRAID): in the archive, nothing would
 * reference it and the linker would leave it out, and the parts with it.
 */
#include "backends/backends.h"
#include "levels/levels.h"
#include "recovery/recovery.h"

static void __attribute__((constructor(200))) raid_modules_register(void)
{
	/*
	 * A failure is a defect of this build, said by raid_log; what did not register is
	 * refused where a job asks for it ("raid_level=5 is not supported yet", ...).
	 */
	raid_backends_register(); /* first: the parity rows follow raid_null_delay */
	raid_levels_register();
	raid_recovery_register();
	raid_inject_register(); /* last: its row follows recovery's raid_fail */
}
