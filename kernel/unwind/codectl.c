// SPDX-License-Identifier: GPL-2.0
/*
 * codectl(2): user space tells the kernel about code it maps itself.
 *
 * The kernel registers the SFrame sections of a program and of its ELF
 * interpreter at exec; everything else is mapped by the dynamic loader,
 * which registers each executable range of an object with its SFrame
 * section here, and unregisters it before unmapping the object.  A JIT
 * registers its code area with a table that it grows itself.  The ABI
 * is in include/uapi/linux/codectl.h and
 * Documentation/userspace-api/codectl.rst.
 *
 * Every argument is checked: a registration only ever affects the calling
 * process's own unwinds, and what it costs the kernel is bounded per mm.
 */
#include <linux/compat.h>
#include <linux/err.h>
#include <linux/limits.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sframe.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/syscalls.h>
#include <linux/uaccess.h>
#include <linux/codectl.h>

#include "sframe.h"

/* The ABI's bound on build IDs is the size of the registry's buffer. */
static_assert(CODECTL_BUILD_ID_MAX == SFRAME_BUILD_ID_MAX);
/* The sizes of the uapi header are the structures' layout. */
static_assert(offsetofend(struct codectl_sframe, sframe_end) ==
	      CODECTL_SFRAME_SIZE_VER0);
static_assert(offsetofend(struct codectl_sframe, build_id_len) ==
	      CODECTL_SFRAME_SIZE_VER1);
static_assert(sizeof(struct codectl_sframe) == CODECTL_SFRAME_SIZE_VER2);
static_assert(sizeof(struct codectl_unregister) ==
	      CODECTL_UNREGISTER_SIZE_VER0);
static_assert(sizeof(struct codectl_jit) == CODECTL_JIT_SIZE_VER0);
/* The JIT table as the lookups read it (kernel/unwind/sframe.h) */
static_assert(sizeof(struct codectl_jit_table) ==
	      sizeof(struct sframe_jit_table));
static_assert(offsetof(struct codectl_jit_table, entry_size) ==
	      offsetof(struct sframe_jit_table, entry_size));
static_assert(offsetof(struct codectl_jit_table, used) ==
	      offsetof(struct sframe_jit_table, used));
static_assert(offsetof(struct codectl_jit_table, next) ==
	      offsetof(struct sframe_jit_table, next));
static_assert(sizeof(struct codectl_jit_entry) ==
	      sizeof(struct sframe_jit_entry));
static_assert(offsetof(struct codectl_jit_entry, state) ==
	      offsetof(struct sframe_jit_entry, state));
static_assert(offsetof(struct codectl_jit_entry, info) ==
	      offsetof(struct sframe_jit_entry, info));
static_assert(offsetof(struct codectl_jit_entry, type) ==
	      offsetof(struct sframe_jit_entry, type));
static_assert(CODECTL_JIT_VERSION == SFRAME_JIT_VERSION);
static_assert(CODECTL_JIT_ENTRY_MIN == SFRAME_JIT_ENTRY_MIN);
static_assert(CODECTL_JIT_ENTRY_MAX == SFRAME_JIT_ENTRY_MAX);
static_assert(CODECTL_JIT_MAX_TABLES == SFRAME_JIT_MAX_TABLES);
static_assert(CODECTL_JIT_LIVE == SFRAME_JIT_LIVE);
/* An entry's rule is an SFrame FRE and FDE type */
static_assert(CODECTL_JIT_CFA_SP == SFRAME_FRE_INFO_BASE_SP);
static_assert(CODECTL_JIT_RA_MANGLED == SFRAME_FRE_INFO_RA_MANGLED);
static_assert(CODECTL_JIT_INFO(0, 15, CODECTL_JIT_WORD_4B) ==
	      ((15 << 1) | (SFRAME_FRE_WORD_4B << 5)));
static_assert(CODECTL_JIT_TYPE_DEFAULT == SFRAME_FDE_TYPE_DEFAULT);
static_assert(CODECTL_JIT_TYPE_FLEX == SFRAME_FDE_TYPE_FLEX);
static_assert(CODECTL_JIT_FLEX_REG == SFRAME_FLEX_REG_P);
static_assert(CODECTL_JIT_FLEX_DEREF == SFRAME_FLEX_DEREF_P);
static_assert(SFRAME_FLEX_REGNUM(CODECTL_JIT_FLEX_REGNUM(29)) == 29);

/*
 * Copy in an option's structure of @usize bytes, at least its first version
 * @ver0.  Like openat2() and clone3(), refuse more than a page: the bytes
 * beyond the kernel's structure are all read to check that they are zero.
 */
static int codectl_copy_info(void *dst, size_t ksize, size_t ver0,
			     const void __user *uinfo, size_t usize)
{
	if (usize < ver0)
		return -EINVAL;
	if (usize > PAGE_SIZE)
		return -E2BIG;
	return copy_struct_from_user(dst, ksize, uinfo, usize);
}

/*
 * A NUL-terminated user string of at most @max bytes with its NUL, or NULL
 * for none.  Not strndup_user(): the copy is charged to the caller's memory
 * cgroup, as the registration that keeps it is.
 */
static char *codectl_strdup(u64 uptr, long max)
{
	const char __user *ustr = u64_to_user_ptr(uptr);
	long len;
	char *s;

	if (!uptr)
		return NULL;
	len = strnlen_user(ustr, max);
	if (!len)
		return ERR_PTR(-EFAULT);
	if (len > max)
		return ERR_PTR(-ENAMETOOLONG);
	s = kmalloc(len, GFP_KERNEL_ACCOUNT);
	if (!s)
		return ERR_PTR(-ENOMEM);
	if (copy_from_user(s, ustr, len)) {
		kfree(s);
		return ERR_PTR(-EFAULT);
	}
	/* The string may have changed since it was measured. */
	s[len - 1] = '\0';
	return s;
}

/* How a registration names its object, for tools that show stacks. */
static struct sframe_objinfo *codectl_objinfo(const struct codectl_sframe *arg)
{
	struct sframe_objinfo *info;
	int ret;

	if (arg->build_id_len > CODECTL_BUILD_ID_MAX ||
	    !arg->build_id != !arg->build_id_len)
		return ERR_PTR(-EINVAL);
	if (!arg->pathname && !arg->build_id)
		return NULL;

	info = kzalloc_obj(*info, GFP_KERNEL_ACCOUNT);
	if (!info)
		return ERR_PTR(-ENOMEM);
	refcount_set(&info->refs, 1);
	info->build_id_len = arg->build_id_len;
	if (arg->build_id_len &&
	    copy_from_user(info->build_id, u64_to_user_ptr(arg->build_id),
			   arg->build_id_len)) {
		ret = -EFAULT;
		goto err;
	}
	info->pathname = codectl_strdup(arg->pathname, PATH_MAX);
	if (IS_ERR(info->pathname)) {
		ret = PTR_ERR(info->pathname);
		info->pathname = NULL;
		goto err;
	}
	return info;
err:
	sframe_objinfo_put(info);
	return ERR_PTR(ret);
}

static int codectl_register_sframe(const void __user *uinfo, size_t size)
{
	struct sframe_objinfo *info;
	struct codectl_sframe arg;
	int ret;

	ret = codectl_copy_info(&arg, sizeof(arg), CODECTL_SFRAME_SIZE_VER0,
				uinfo, size);
	if (ret)
		return ret;

	/* Addresses may be tagged, as for munmap() and mprotect(). */
	arg.text_start = untagged_addr(arg.text_start);
	arg.text_end = untagged_addr(arg.text_end);
	arg.sframe_start = untagged_addr(arg.sframe_start);
	arg.sframe_end = untagged_addr(arg.sframe_end);
	arg.sframe_addr = untagged_addr(arg.sframe_addr);
	/* Non-empty ranges of user addresses that do not wrap. */
	if (arg.text_start >= arg.text_end ||
	    arg.sframe_start >= arg.sframe_end ||
	    arg.text_end > TASK_SIZE || arg.sframe_end > TASK_SIZE)
		return -EINVAL;
	/* Where ld puts the section: its 32-bit fields are aligned. */
	if (!IS_ALIGNED(arg.sframe_start, 4))
		return -EINVAL;
	/* Where the offsets count from: the section is described as there. */
	if (!arg.sframe_addr)
		arg.sframe_addr = arg.sframe_start;
	if (arg.sframe_addr > TASK_SIZE ||
	    arg.sframe_end - arg.sframe_start > TASK_SIZE - arg.sframe_addr)
		return -EINVAL;

	info = codectl_objinfo(&arg);
	if (IS_ERR(info))
		return PTR_ERR(info);
	ret = sframe_add_section(current->mm, arg.sframe_start, arg.sframe_end,
				 arg.sframe_addr, arg.text_start, arg.text_end,
				 info, true);
	if (ret)
		sframe_objinfo_put(info);
	return ret;
}

static int codectl_register_jit(const void __user *uinfo, size_t size)
{
	struct codectl_jit arg;
	int ret;

	ret = codectl_copy_info(&arg, sizeof(arg), CODECTL_JIT_SIZE_VER0,
				uinfo, size);
	if (ret)
		return ret;

	arg.text_start = untagged_addr(arg.text_start);
	arg.text_end = untagged_addr(arg.text_end);
	arg.table = untagged_addr(arg.table);
	/* Non-empty ranges of user addresses that do not wrap */
	if (arg.text_start >= arg.text_end || !arg.table_size ||
	    arg.text_end > TASK_SIZE || arg.table > TASK_SIZE ||
	    arg.table_size > TASK_SIZE - arg.table)
		return -EINVAL;
	/* Entries give offsets in 32 bits; the table's counts are aligned. */
	if (arg.text_end - arg.text_start > BIT_ULL(32) ||
	    !IS_ALIGNED(arg.table, 8))
		return -EINVAL;
	return sframe_add_jit(current->mm, arg.table,
			      arg.table + arg.table_size, arg.text_start,
			      arg.text_end);
}

static int codectl_unregister(const void __user *uinfo, size_t size)
{
	struct codectl_unregister arg;
	int ret;

	ret = codectl_copy_info(&arg, sizeof(arg), CODECTL_UNREGISTER_SIZE_VER0,
				uinfo, size);
	if (ret)
		return ret;
	return sframe_remove_section(current->mm,
				     untagged_addr(arg.text_start));
}

/**
 * sys_codectl - register or unregister code that user space maps
 * @option:	CODECTL_REGISTER_SFRAME, CODECTL_REGISTER_JIT or
 *		CODECTL_UNREGISTER
 * @info:	the option's argument structure
 * @info_size:	its size, as the caller knows the structure
 * @flags:	must be 0
 *
 * Return: 0, or a negative errno as codectl(2) documents.
 */
SYSCALL_DEFINE4(codectl, unsigned int, option, const void __user *, info,
		size_t, info_size, unsigned int, flags)
{
	if (flags)
		return -EINVAL;
	/*
	 * The unwinder walks SFrame stacks of 64-bit tasks only: a compat
	 * task's registration would pin memory for nothing.
	 */
	if (in_compat_syscall())
		return -EOPNOTSUPP;

	switch (option) {
	case CODECTL_REGISTER_SFRAME:
		return codectl_register_sframe(info, info_size);
	case CODECTL_UNREGISTER:
		return codectl_unregister(info, info_size);
	case CODECTL_REGISTER_JIT:
		return codectl_register_jit(info, info_size);
	default:
		return -EINVAL;
	}
}
