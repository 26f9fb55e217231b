// SPDX-License-Identifier: GPL-2.0
/*
 * The file hooks of every backend with real files (psync, libaio,
 * io_uring): fio's own generic open, close and size, as fio's psync,
 * libaio and io_uring engines use them (backend.h).
 */
#include "backend.h"

int fc_file_open(struct thread_data *td, void fio_unused *priv,
		 struct fio_file *f)
{
	return generic_open_file(td, f);
}

int fc_file_close(struct thread_data *td, void fio_unused *priv,
		  struct fio_file *f)
{
	return generic_close_file(td, f);
}

int fc_file_size(struct thread_data *td, void fio_unused *priv,
		 struct fio_file *f)
{
	return generic_get_file_size(td, f);
}
