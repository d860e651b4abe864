// SPDX-License-Identifier: GPL-2.0
/*
 * codectl(2): user space tells the kernel about code it maps itself.
 *
 * The kernel registers the SFrame sections of a program and of its ELF
 * interpreter at exec; everything else is mapped by the dynamic loader,
 * which registers each executable range of an object with its SFrame
 * section here, and unregisters it before unmapping the object.  The ABI
 * is in include/uapi/linux/codectl.h and
 * Documentation/userspace-api/codectl.rst.
 *
 * Every argument is checked: a registration only ever affects the calling
 * process's own unwinds, and what it costs the kernel is bounded per mm.
 */
#include <linux/err.h>
#include <linux/limits.h>
#include <linux/sched.h>
#include <linux/sframe.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/syscalls.h>
#include <linux/uaccess.h>
#include <linux/codectl.h>

/* The ABI's bound on build IDs is the size of the registry's buffer. */
static_assert(CODECTL_BUILD_ID_MAX == SFRAME_BUILD_ID_MAX);
/* The sizes of the uapi header are the structures' layout. */
static_assert(offsetofend(struct codectl_sframe, sframe_end) ==
	      CODECTL_SFRAME_SIZE_VER0);
static_assert(sizeof(struct codectl_sframe) == CODECTL_SFRAME_SIZE_VER1);
static_assert(sizeof(struct codectl_unregister) ==
	      CODECTL_UNREGISTER_SIZE_VER0);

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

/* A NUL-terminated user string of at most @max bytes, or NULL for none. */
static char *codectl_strdup(u64 uptr, long max)
{
	char *s;

	if (!uptr)
		return NULL;
	s = strndup_user(u64_to_user_ptr(uptr), max);
	if (IS_ERR(s) && PTR_ERR(s) == -EINVAL)
		return ERR_PTR(-ENAMETOOLONG);
	return s;
}

/* What a registration says about its object, for consumers to name it. */
static struct sframe_objinfo *codectl_objinfo(const struct codectl_sframe *arg)
{
	struct sframe_objinfo *info;
	int ret;

	/* Nothing after the four ranges: no description. */
	if (!memchr_inv((const void *)arg + CODECTL_SFRAME_SIZE_VER0, 0,
			sizeof(*arg) - CODECTL_SFRAME_SIZE_VER0))
		return NULL;

	/* The object's mapping, when given, holds the text. */
	if ((arg->file_start || arg->file_end) &&
	    (arg->file_start > arg->text_start || arg->file_end < arg->text_end))
		return ERR_PTR(-EINVAL);
	if (arg->build_id_len > CODECTL_BUILD_ID_MAX ||
	    !arg->build_id != !arg->build_id_len)
		return ERR_PTR(-EINVAL);

	info = kzalloc_obj(*info, GFP_KERNEL_ACCOUNT);
	if (!info)
		return ERR_PTR(-ENOMEM);
	refcount_set(&info->refs, 1);
	info->elf_start = arg->file_start;
	info->elf_end = arg->file_end;
	info->debug_link_crc = arg->debug_link_crc;
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
	info->debug_link = codectl_strdup(arg->debug_link, NAME_MAX + 1);
	if (IS_ERR(info->debug_link)) {
		ret = PTR_ERR(info->debug_link);
		info->debug_link = NULL;
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

	/* Non-empty ranges of user addresses that do not wrap. */
	if (arg.text_start >= arg.text_end ||
	    arg.sframe_start >= arg.sframe_end ||
	    arg.text_end > TASK_SIZE || arg.sframe_end > TASK_SIZE)
		return -EINVAL;
	/* Where ld puts the section: its 32-bit fields are aligned. */
	if (!IS_ALIGNED(arg.sframe_start, 4))
		return -EINVAL;

	info = codectl_objinfo(&arg);
	if (IS_ERR(info))
		return PTR_ERR(info);
	ret = sframe_add_section(current->mm, arg.sframe_start, arg.sframe_end,
				 arg.text_start, arg.text_end, info, true);
	if (ret)
		sframe_objinfo_put(info);
	return ret;
}

static int codectl_unregister(const void __user *uinfo, size_t size)
{
	struct codectl_unregister arg;
	int ret;

	ret = codectl_copy_info(&arg, sizeof(arg), CODECTL_UNREGISTER_SIZE_VER0,
				uinfo, size);
	if (ret)
		return ret;
	return sframe_remove_section(current->mm, arg.text_start);
}

/**
 * sys_codectl - register or unregister code that user space maps
 * @option:	CODECTL_REGISTER_SFRAME, CODECTL_UNREGISTER; CODECTL_REGISTER_JIT
 *		is reserved
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

	switch (option) {
	case CODECTL_REGISTER_SFRAME:
		return codectl_register_sframe(info, info_size);
	case CODECTL_UNREGISTER:
		return codectl_unregister(info, info_size);
	case CODECTL_REGISTER_JIT:
		/* Growable JIT tables are reserved for a later extension. */
		return -EOPNOTSUPP;
	default:
		return -EINVAL;
	}
}
