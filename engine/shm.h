/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory shared by every job of one fio run: threads (thread=1) and fio's
 * forked job processes alike.
 *
 * The arena is an anonymous MAP_SHARED mapping made when fio loads the
 * engine, which fio does while parsing the job file, before it forks any
 * job. Forked jobs inherit it, threads share it, and nothing else can reach
 * it: it has no name, so two fio runs never share one, no other user can
 * open it, and it goes away with the last process of the run, however that
 * run ends (exit, SIGINT, SIGTERM or SIGKILL). Nothing is ever left in
 * /dev/shm to be reclaimed or attached by a later run.
 *
 * Objects in it are found by a key (say "filemap:/dev/nvme0n1"): the first
 * job that asks creates the object zero-filled, later jobs get the same one.
 */
#ifndef FLAGCHECK_SHM_H
#define FLAGCHECK_SHM_H

#include <stdbool.h>
#include <stddef.h>

/* Objects are aligned to this, so that two objects never share a line
 * (128: the adjacent-line prefetcher pairs 64-byte lines on x86). */
#define FC_SHM_ALIGN	128

/* 0, or the errno that made the arena unavailable at load time */
int fc_shm_error(void);

/*
 * The object named @key, of @size bytes, shared by the whole run; *created
 * tells whether this call made it. NULL with errno set when the arena is
 * full or unavailable.
 */
void *fc_shm_get(const char *key, size_t size, bool *created);

/* Make the arena; called once at load. Exposed for the unit tests. */
int fc_shm_init(size_t size);

#endif
