// SPDX-License-Identifier: GPL-2.0
/*
 * The run-wide shared arena: see shm.h for why it is anonymous and made at
 * load time.
 */
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "shm.h"

/* Names the arena holds: 32 bytes a slot, touched only when used */
#define FC_SHM_SLOTS	65536
#define FC_SHM_KEY_MAX	4096
/* Virtual size only: pages are allocated when first touched. */
#define FC_SHM_DEFAULT_SIZE	(1ULL << 30)

enum { SLOT_EMPTY = 0, SLOT_BUSY, SLOT_READY };

/* A name and its object; the name's text lives in the arena too. */
struct fc_shm_slot {
	uint32_t state;
	uint32_t keylen;
	uint64_t key;		/* offset of the name, NUL-terminated */
	uint64_t offset;	/* of the object; 0 while being made */
	uint64_t size;
};

struct fc_shm_header {
	uint64_t size;		/* of the whole arena */
	uint64_t next;		/* bump allocator, offset from the base */
	struct fc_shm_slot slots[FC_SHM_SLOTS];
};

/*
 * Set once, at load, before fio forks: every job process inherits the same
 * pointer to the same shared pages, every thread reads the same value. Not
 * per-job state, so it does not belong in td->io_ops_data.
 */
static struct fc_shm_header *arena;
static int arena_errno = ENOMEM;

int fc_shm_error(void)
{
	return arena ? 0 : arena_errno;
}

int fc_shm_init(size_t size)
{
	void *p;

	if (arena)
		return 0;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		arena_errno = errno;
		return -errno;
	}
	arena = p;
	arena->size = size;
	arena->next = (sizeof(*arena) + FC_SHM_ALIGN - 1) & ~(uint64_t)(FC_SHM_ALIGN - 1);
	return 0;
}

__attribute__((constructor))
static void fc_shm_load(void)
{
	fc_shm_init(FC_SHM_DEFAULT_SIZE);
}

static uint64_t fc_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 1099511628211ULL;
	}
	return h;
}

/*
 * Bump allocation that only moves when the object fits: a request too
 * large for what is left fails and leaves the arena as it was.
 */
static void *fc_shm_alloc(size_t size)
{
	uint64_t len = (size + FC_SHM_ALIGN - 1) & ~(uint64_t)(FC_SHM_ALIGN - 1);
	uint64_t off = __atomic_load_n(&arena->next, __ATOMIC_RELAXED);

	if (len < size)
		return NULL;
	do {
		if (off + len > arena->size || off + len < off)
			return NULL;
	} while (!__atomic_compare_exchange_n(&arena->next, &off, off + len,
					      true, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return (char *)arena + off;
}

static const char *slot_key(const struct fc_shm_slot *s)
{
	return (const char *)arena + s->key;
}

/*
 * Make @s, claimed by this job (SLOT_BUSY), the object of @key: the
 * object, or NULL (errno ENOMEM) with the slot free again.
 */
static void *fc_shm_fill(struct fc_shm_slot *s, const char *key,
			 size_t keylen, size_t size)
{
	char *name = fc_shm_alloc(keylen + 1);
	void *obj = name ? fc_shm_alloc(size) : NULL;

	if (!obj) {
		/*
		 * Nothing is kept of a failed request (the name's few bytes
		 * aside): the slot is free again and a later, smaller request
		 * for this name can succeed.
		 */
		__atomic_store_n(&s->state, SLOT_EMPTY, __ATOMIC_RELEASE);
		errno = ENOMEM;
		return NULL;
	}
	memcpy(name, key, keylen + 1);
	s->key = (uint64_t)(name - (char *)arena);
	s->keylen = keylen;
	s->size = size;
	s->offset = (uint64_t)((char *)obj - (char *)arena);
	__atomic_store_n(&s->state, SLOT_READY, __ATOMIC_RELEASE);
	return obj;
}

/*
 * Claim the empty @s for this job (SLOT_BUSY): true, or false with
 * *state what another job made of it first.
 */
static bool fc_shm_claim(struct fc_shm_slot *s, uint32_t *state)
{
	uint32_t expect = SLOT_EMPTY;

	if (__atomic_compare_exchange_n(&s->state, &expect, SLOT_BUSY, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return true;
	*state = expect;
	return false;
}

/* Another job is creating @s: wait until it is named (or freed again) */
static uint32_t fc_shm_wait(struct fc_shm_slot *s, uint32_t state)
{
	while (state == SLOT_BUSY) {
		sched_yield();
		state = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
	}
	return state;
}

/* A key the arena can take: 0, or -1 with errno set */
static int fc_shm_usable(size_t keylen)
{
	if (!arena) {
		errno = arena_errno;
		return -1;
	}
	if (keylen >= FC_SHM_KEY_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

void *fc_shm_get(const char *key, size_t size, bool *created)
{
	size_t keylen = strlen(key);
	uint64_t h;
	unsigned int i;

	*created = false;
	if (fc_shm_usable(keylen))
		return NULL;
	h = fc_hash(key);
	for (i = 0; i < FC_SHM_SLOTS; i++) {
		struct fc_shm_slot *s = &arena->slots[(h + i) % FC_SHM_SLOTS];
		uint32_t state = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);

		if (state == SLOT_EMPTY && fc_shm_claim(s, &state)) {
			void *obj = fc_shm_fill(s, key, keylen, size);

			*created = obj != NULL;
			return obj;
		}
		state = fc_shm_wait(s, state);
		if (state == SLOT_EMPTY) {	/* its maker failed: try again */
			i--;
			continue;
		}
		if (s->keylen != keylen || strcmp(slot_key(s), key))
			continue;
		if (s->size < size) {
			errno = EINVAL;
			return NULL;
		}
		return (char *)arena + s->offset;
	}
	errno = ENOSPC;
	return NULL;
}
