/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's plain accesses and atomic_long_t operations on an unsigned
 * long, with the kernel's names and its ordering (Documentation/atomic_t.txt,
 * as of 6.4), built on GCC's __atomic builtins:
 *
 *  - READ_ONCE() / WRITE_ONCE(), atomic_long_read() / atomic_long_set():
 *    plain loads and stores (mov on x86), never torn or merged. A plain
 *    store still takes the line exclusive.
 *  - atomic_long_add() / _inc() / _dec(): RMWs with no ordering (lock add).
 *  - atomic_long_xchg() / atomic_long_cmpxchg(): fully ordered RMWs (xchg,
 *    lock cmpxchg). A cmpxchg that fails still takes the line on x86: lock
 *    cmpxchg writes back the old value.
 *  - smp_store_release(): a store ordered after the accesses before it (a
 *    plain mov on x86), as spin_unlock() releases a lock; cpu_relax(): a
 *    spin's pause.
 *
 * The bit operations are in bitops.h.
 */
#ifndef FLAGCHECK_ATOMIC_H
#define FLAGCHECK_ATOMIC_H

static inline unsigned long read_once(const unsigned long *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline void write_once(unsigned long *p, unsigned long v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

static inline void atomic_long_add(unsigned long i, unsigned long *p)
{
	__atomic_fetch_add(p, i, __ATOMIC_RELAXED);
}

/* atomic_long_add_return(): the new value, fully ordered (lock xadd) */
static inline unsigned long atomic_long_add_return(unsigned long i,
						   unsigned long *p)
{
	return __atomic_add_fetch(p, i, __ATOMIC_SEQ_CST);
}

static inline unsigned long atomic_long_xchg(unsigned long *p,
					     unsigned long v)
{
	return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);
}

/* the value before: @old if it swapped */
static inline unsigned long atomic_long_cmpxchg(unsigned long *p,
						unsigned long old,
						unsigned long new)
{
	__atomic_compare_exchange_n(p, &old, new, 0, __ATOMIC_SEQ_CST,
				    __ATOMIC_SEQ_CST);
	return old;
}

static inline void smp_store_release(unsigned long *p, unsigned long v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

#endif
