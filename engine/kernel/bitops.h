/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's bit operations on an unsigned long, with the kernel's names
 * and the ordering guarantees that Documentation/atomic_bitops.txt states
 * for them (as of 6.4), built on GCC's __atomic builtins rather than the
 * kernel's per-arch asm:
 *
 *  - test_bit() is a plain load: on a line that other CPUs only read, it
 *    hits the local cache and leaves the line shared and clean.
 *  - set_bit() / clear_bit() are atomic RMWs with no ordering.
 *  - test_and_set_bit() / test_and_clear_bit() are atomic RMWs that are
 *    fully ordered, as in the kernel.
 *
 * Every RMW here is a real lock-prefixed instruction on x86 (LSE or LL/SC on
 * arm64): it takes the cache line in exclusive state, which is exactly the
 * cost the models measure. The compiler may not merge or drop them.
 */
#ifndef FLAGCHECK_BITOPS_H
#define FLAGCHECK_BITOPS_H

#include <stdbool.h>

#define BIT_MASK(nr)	(1UL << ((nr) % (8 * sizeof(unsigned long))))
#define BIT_WORD(nr)	((nr) / (8 * sizeof(unsigned long)))

static inline bool test_bit(long nr, const unsigned long *addr)
{
	return (__atomic_load_n(addr + BIT_WORD(nr), __ATOMIC_RELAXED) &
		BIT_MASK(nr)) != 0;
}

static inline void set_bit(long nr, unsigned long *addr)
{
	__atomic_fetch_or(addr + BIT_WORD(nr), BIT_MASK(nr), __ATOMIC_RELAXED);
}

static inline void clear_bit(long nr, unsigned long *addr)
{
	__atomic_fetch_and(addr + BIT_WORD(nr), ~BIT_MASK(nr), __ATOMIC_RELAXED);
}

static inline void change_bit(long nr, unsigned long *addr)
{
	__atomic_fetch_xor(addr + BIT_WORD(nr), BIT_MASK(nr), __ATOMIC_RELAXED);
}

/*
 * __set_bit() / __clear_bit(): non-atomic, a load and a plain store (the
 * store still takes the line exclusive). Relaxed atomic load and store so
 * that the compiler keeps both and ThreadSanitizer sees no race: on x86 and
 * arm64 they are the plain mov / ldr, str the kernel's generic versions are.
 */
static inline void __set_bit(long nr, unsigned long *addr)
{
	unsigned long *p = addr + BIT_WORD(nr);

	__atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) | BIT_MASK(nr),
			 __ATOMIC_RELAXED);
}

static inline void __clear_bit(long nr, unsigned long *addr)
{
	unsigned long *p = addr + BIT_WORD(nr);

	__atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) & ~BIT_MASK(nr),
			 __ATOMIC_RELAXED);
}

static inline bool test_and_set_bit(long nr, unsigned long *addr)
{
	unsigned long mask = BIT_MASK(nr);

	return (__atomic_fetch_or(addr + BIT_WORD(nr), mask,
				  __ATOMIC_SEQ_CST) & mask) != 0;
}

static inline bool test_and_clear_bit(long nr, unsigned long *addr)
{
	unsigned long mask = BIT_MASK(nr);

	return (__atomic_fetch_and(addr + BIT_WORD(nr), ~mask,
				   __ATOMIC_SEQ_CST) & mask) != 0;
}


/*
 * smp_mb(): a full barrier, as the kernel emits it: on x86-64 a locked no-op
 * on the stack (cheaper than mfence, and a line no other CPU wants: the
 * kernel's since 450cbdd0125c, 2017, which uses "lock; addl $0,-4(%rsp)"),
 * on arm64 dmb ish. Inline asm rather than __atomic_thread_fence(), which
 * ThreadSanitizer refuses; the memory it orders is all accessed atomically.
 */
static inline void smp_mb(void)
{
#if defined(__x86_64__)
	__asm__ __volatile__("lock; orq $0, (%%rsp)" ::: "memory", "cc");
#elif defined(__aarch64__)
	__asm__ __volatile__("dmb ish" ::: "memory");
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/*
 * smp_mb__before_atomic(): what the kernel emits, arch by arch (as of 6.4).
 * On x86 a compiler barrier only (arch/x86/include/asm/barrier.h): the
 * lock prefix of the set_bit() that follows is already a full barrier.
 * Elsewhere (arm64: dmb ish) a real full barrier, smp_mb(), since set_bit()
 * orders nothing. SMP_MB__BEFORE_ATOMIC_IS_BARRIER says which.
 */
#if defined(__x86_64__) || defined(__i386__)
#define SMP_MB__BEFORE_ATOMIC_IS_BARRIER 1
#endif

static inline void smp_mb__before_atomic(void)
{
#ifdef SMP_MB__BEFORE_ATOMIC_IS_BARRIER
	__asm__ __volatile__("" ::: "memory");
#else
	smp_mb();
#endif
}

#endif
