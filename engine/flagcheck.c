// SPDX-License-Identifier: GPL-2.0
/*
 * flagcheck: a fio ioengine that runs a model of a kernel hot path on a
 * flags word shared by every job before each I/O, in the kernel's old
 * "always RMW" form or its "test first" form, and then does the I/O through
 * a backend.
 *
 *   fio --ioengine=external:fio-flagcheck.so --variant=always ...
 *
 * Data flows one way: fio hook -> model (model.h) -> backend (backend.h) ->
 * completion. This file is the ops table fio loads and what runs at load;
 * the hooks are in files of their own (job.h): every I/O in queue.c, a
 * job's setup, init and end in job.c, fio's submit workers in offload.c,
 * the files' model states in file_state.c. The options are in options.c
 * and model_options.c, the report at job end in report.c.
 */
#include <string.h>

#include "fio.h"

#include "job.h"
#include "options.h"
#include "report.h"

struct ioengine_ops ioengine = {
	.name			= "flagcheck",
	.version		= FIO_IOOPS_VERSION,
	/* the default backend's (null); a job's own follow its backend */
	.flags			= FIO_DISKLESSIO | FIO_FAKEIO,
	.init			= fio_flagcheck_init,
	.cleanup		= fio_flagcheck_cleanup,
	.setup			= fio_flagcheck_setup,
	.queue			= fio_flagcheck_queue,
	.commit			= fio_flagcheck_commit,
	.getevents		= fio_flagcheck_getevents,
	.event			= fio_flagcheck_event,
	.open_file		= fio_flagcheck_open_file,
	.close_file		= fio_flagcheck_close_file,
	.get_file_size		= fio_flagcheck_get_file_size,
	.option_struct_size	= sizeof(struct flagcheck_options),
	.options		= fc_options,
};

/* fio exports this (it links with -rdynamic); weak so an fio without it
 * gets our message rather than a dlopen failure. */
extern const char fio_version_string[] __attribute__((weak));

/*
 * fio's structs change with its version and configuration, and
 * FIO_IOOPS_VERSION does not catch all of it: refuse to run under another
 * fio than the one whose headers we were built with. fio then rejects the
 * engine ("bad ioops version") before any job starts.
 */
__attribute__((constructor))
static void fio_flagcheck_load(void)
{
	const char *running = fio_version_string ? fio_version_string :
			      "an fio that does not export fio_version_string";

	fc_report_load();
	if (fc_options_load()) {
		ioengine.version = -1;	/* fio refuses the engine */
		return;
	}
	if (!strcmp(running, FLAGCHECK_FIO_VERSION))
		return;
	log_err("flagcheck: built against the headers of %s but loaded by %s; "
		"rebuild the engine against this fio's source "
		"(make FIO_SRC=/path/to/its/source)\n",
		FLAGCHECK_FIO_VERSION, running);
	ioengine.version = -1;
}
