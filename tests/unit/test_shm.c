// SPDX-License-Identifier: GPL-2.0
/* The run-wide arena: one object per key, shared by threads and by forked
 * processes, created once, aligned to its own lines. */
#include <errno.h>
#include <stdio.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shm.h"
#include "unit.h"

static void same_key_same_object(void)
{
	bool created;
	void *a = fc_shm_get("filemap:/dev/x", 64, &created);
	void *b;

	CHECK(a != NULL);
	CHECK(created);
	b = fc_shm_get("filemap:/dev/x", 64, &created);
	CHECK(a == b);
	CHECK(!created);
	CHECK(fc_shm_get("filemap:/dev/y", 64, &created) != a);
	CHECK(((uintptr_t)a % FC_SHM_ALIGN) == 0);
}

static void objects_start_zeroed(void)
{
	bool created;
	unsigned char *p = fc_shm_get("zeroed", 4096, &created);
	int i;

	CHECK(p && created);
	for (i = 0; i < 4096; i++)
		CHECK_EQ(p[i], 0);
}

static void forked_children_share(void)
{
	bool created;
	unsigned long *word;
	pid_t pid;
	int status, i;

	for (i = 0; i < 3; i++) {
		pid = fork();
		CHECK(pid >= 0);
		if (pid == 0) {
			/* a child creates or finds it, like a forked fio job */
			word = fc_shm_get("forked", sizeof(*word), &created);
			if (!word)
				_exit(2);
			__atomic_fetch_add(word, 1, __ATOMIC_SEQ_CST);
			_exit(0);
		}
		CHECK(waitpid(pid, &status, 0) == pid);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	word = fc_shm_get("forked", sizeof(*word), &created);
	CHECK(word != NULL);
	CHECK(!created);
	CHECK_EQ(*word, 3);
}

#define RACERS 8
static void *racer(void *arg)
{
	bool created;
	void **out = arg;

	out[0] = fc_shm_get("raced", 256, &created);
	out[1] = (void *)(uintptr_t)created;
	return NULL;
}

static void concurrent_creation_makes_one(void)
{
	pthread_t t[RACERS];
	void *res[RACERS][2];
	int i, creators = 0;

	for (i = 0; i < RACERS; i++)
		CHECK(pthread_create(&t[i], NULL, racer, res[i]) == 0);
	for (i = 0; i < RACERS; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < RACERS; i++) {
		CHECK(res[i][0] == res[0][0]);
		creators += res[i][1] != NULL;
	}
	CHECK(res[0][0] != NULL);
	CHECK_EQ(creators, 1);
}

static void long_keys_are_refused(void)
{
	char key[8192];
	bool created;

	memset(key, 'k', sizeof(key) - 1);
	key[sizeof(key) - 1] = '\0';
	CHECK(fc_shm_get(key, 8, &created) == NULL);
	CHECK_EQ(errno, ENAMETOOLONG);
}

/* A request larger than the arena fails and leaves it as it was. */
static void failed_allocation_changes_nothing(void)
{
	bool created;
	void *p;

	CHECK(fc_shm_get("huge", (size_t)1 << 40, &created) == NULL);
	CHECK_EQ(errno, ENOMEM);
	CHECK(!created);
	p = fc_shm_get("small-after-huge", 128, &created);
	CHECK(p != NULL);
	CHECK(created);
	/* the failed name is free again: a fitting request for it succeeds */
	p = fc_shm_get("huge", 128, &created);
	CHECK(p != NULL);
	CHECK(created);
}

/* More names than the old table's 1024: every one gets its own object. */
static void many_names(void)
{
	char key[64];
	bool created;
	int i;

	for (i = 0; i < 5000; i++) {
		unsigned long *p;

		snprintf(key, sizeof(key), "many:%d", i);
		p = fc_shm_get(key, sizeof(*p), &created);
		CHECK(p != NULL);
		CHECK(created);
		*p = i;
	}
	for (i = 0; i < 5000; i++) {
		unsigned long *p;

		snprintf(key, sizeof(key), "many:%d", i);
		p = fc_shm_get(key, sizeof(*p), &created);
		CHECK(p != NULL);
		CHECK(!created);
		CHECK_EQ(*p, (unsigned long)i);
	}
}

static void arena_made_at_load(void)
{
	CHECK_EQ(fc_shm_error(), 0);
}

int main(void)
{
	RUN(arena_made_at_load);
	RUN(same_key_same_object);
	RUN(objects_start_zeroed);
	RUN(forked_children_share);
	RUN(concurrent_creation_makes_one);
	RUN(long_keys_are_refused);
	RUN(failed_allocation_changes_nothing);
	RUN(many_names);
	UNIT_EXIT();
}
