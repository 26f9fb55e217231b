/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the fio trees the engine builds against (3.33 to
 * 3.42). Each difference is decided by a feature test the Makefile runs on
 * the tree itself (FC_FIO_HAS_*, grep of its headers), never by its version
 * number: a tree in between, or a patched one, gets what its headers say.
 * Everything else (engine flags, directions, their values and counts) is
 * taken by name from the tree's own headers.
 */
#ifndef FC_FIO_COMPAT_H
#define FC_FIO_COMPAT_H

#include "fio.h"

/*
 * Has fio's ramp period (ramp_time=, or ramp_size= where fio has it)
 * ended for @td, and fio zeroed its counts for it (reset_all_stats)?
 * fio 3.42 (commit 8b3d9f24, "time: rename in_ramp_time() and
 * ramp_time_over()") keeps a ramp_period_state behind in_ramp_period();
 * before, a bool td->ramp_time_over.
 */
#ifdef FC_FIO_HAS_RAMP_PERIOD
/*
 * Weak: an fio before 3.42 has no in_ramp_period(), and the engine, linked
 * -z now, would fail dlopen() there ("undefined symbol") before its
 * version check could say which fio it was built for. Never called then.
 */
extern bool in_ramp_period(struct thread_data *) __attribute__((weak));

static inline bool fc_fio_ramp_over(struct thread_data *td)
{
	return !in_ramp_period(td);
}
#else
static inline bool fc_fio_ramp_over(struct thread_data *td)
{
	return td->ramp_time_over;
}
#endif

/* Does @td start with a ramp period at all? */
static inline bool fc_fio_ramp_set(struct thread_data *td)
{
#ifdef FC_FIO_HAS_RAMP_SIZE
	if (td->o.ramp_size)
		return true;
#endif
	return td->o.ramp_time != 0;
}

#endif
