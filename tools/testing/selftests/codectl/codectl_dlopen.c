// SPDX-License-Identifier: GPL-2.0
/*
 * dlopen() and dlclose() of a library with an SFrame section, 100 times,
 * under the rtld-audit module sframe-audit.so: while the library is open,
 * each of its executable segments is registered, with its path, its build
 * ID and source "codectl", and after dlclose() the registrations are back
 * to what they were.  Without the module, dlopen() registers nothing.  A
 * library whose build ID is longer than CODECTL_BUILD_ID_MAX is registered
 * without it.
 *
 * The program runs itself as a child for each case, with or without
 * LD_AUDIT in its environment.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../kselftest.h"
#include "codectl_chain.h"
#include "codectl_util.h"

#define ITERATIONS	100

/* Exit codes of a child */
#define CHILD_OK	0
#define CHILD_WRONG	1	/* the registrations are not as expected */
#define CHILD_BROKEN	2	/* the test could not run */

/* The library with a build ID of 32 bytes (-Wl,--build-id=0x...) */
#define CT_LONGID_SO		"libcodectl_longid.so"
#define CT_LONGID_LEN		32

/* Is the library open as @obj registered, and exactly so? */
static bool lib_registered(const struct ct_object *obj, const char *shown,
			   const char *build_id)
{
	struct ct_line l;
	unsigned int i;
	int n;

	for (i = 0; i < obj->ntext; i++) {
		if (ct_sframe_lines(obj->text_start[i], &l, &n, NULL) < 0)
			return false;
		if (n != 1) {
			ksft_print_msg("text %#lx-%#lx of the library: %d lines\n",
				       obj->text_start[i], obj->text_end[i], n);
			return false;
		}
		if (l.text_end != obj->text_end[i] ||
		    l.sframe_start != obj->sframe_start ||
		    l.sframe_end != obj->sframe_end ||
		    strcmp(l.source, "codectl") || strcmp(l.state, "ok") ||
		    strcmp(l.build_id, build_id) || strcmp(l.path, shown)) {
			ksft_print_msg("got:  %lx-%lx %lx-%lx %s %s build-id '%s' %s\n",
				       l.text_start, l.text_end, l.sframe_start,
				       l.sframe_end, l.source, l.state,
				       l.build_id, l.path);
			ksft_print_msg("want: %lx-%lx %lx-%lx codectl ok build-id '%s' %s\n",
				       obj->text_start[i], obj->text_end[i],
				       obj->sframe_start, obj->sframe_end,
				       build_id, shown);
			return false;
		}
	}
	return true;
}

static bool lib_unlisted(const struct ct_object *obj)
{
	unsigned int i;
	int n;

	for (i = 0; i < obj->ntext; i++) {
		if (ct_sframe_lines(obj->text_start[i], NULL, &n, NULL) < 0)
			return false;
		if (n) {
			ksft_print_msg("text %#lx of the library is still listed\n",
				       obj->text_start[i]);
			return false;
		}
	}
	return true;
}

static void *open_lib(const char *path, struct ct_object *obj)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		ksft_print_msg("dlopen(%s): %s\n", path, dlerror());
		return NULL;
	}
	if (!dlsym(h, "cl_entry")) {
		ksft_print_msg("%s has no cl_entry: not the test library\n",
			       path);
		dlclose(h);
		return NULL;
	}
	if (ct_dl_object(h, obj)) {
		dlclose(h);
		return NULL;
	}
	if (!obj->sframe_start || !obj->ntext) {
		ksft_print_msg("%s has no PT_GNU_SFRAME: it must be built with -Wa,--gsframe\n",
			       path);
		dlclose(h);
		return NULL;
	}
	return h;
}

/* Without the audit module: nothing is registered. */
static int child_plain(const char *path)
{
	struct ct_object obj;
	int base, now;
	void *h;

	base = ct_sframe_lines(0, NULL, NULL, NULL);
	h = open_lib(path, &obj);
	if (base < 0 || !h)
		return CHILD_BROKEN;
	now = ct_sframe_lines(0, NULL, NULL, NULL);
	if (now != base || !lib_unlisted(&obj)) {
		ksft_print_msg("without LD_AUDIT: %d registrations before dlopen, %d after\n",
			       base, now);
		ct_sframe_dump();
		return CHILD_WRONG;
	}
	dlclose(h);
	return CHILD_OK;
}

/* Under the audit module: registered while open, unregistered after. */
static int child_audit(const char *path, int iterations)
{
	char shown[4 * PATH_MAX + 1], build_id[2 * CODECTL_BUILD_ID_MAX + 1];
	struct ct_object obj;
	int base, now, i;
	void *h;

	ct_escape(shown, sizeof(shown), path);
	base = ct_sframe_lines(0, NULL, NULL, NULL);
	if (base < 0)
		return CHILD_BROKEN;
	for (i = 0; i < iterations; i++) {
		h = open_lib(path, &obj);
		if (!h)
			return CHILD_BROKEN;
		ct_hex(build_id, obj.build_id, obj.build_id_len);
		now = ct_sframe_lines(0, NULL, NULL, NULL);
		if (now != base + (int)obj.ntext ||
		    !lib_registered(&obj, shown, build_id)) {
			ksft_print_msg("dlopen #%d: %d registrations, want %d + %u\n",
				       i + 1, now, base, obj.ntext);
			ct_sframe_dump();
			return CHILD_WRONG;
		}
		if (dlclose(h)) {
			ksft_print_msg("dlclose: %s\n", dlerror());
			return CHILD_BROKEN;
		}
		now = ct_sframe_lines(0, NULL, NULL, NULL);
		if (now != base || !lib_unlisted(&obj)) {
			ksft_print_msg("dlclose #%d: %d registrations, want %d\n",
				       i + 1, now, base);
			ct_sframe_dump();
			return CHILD_WRONG;
		}
	}
	ksft_print_msg("%d dlopen/dlclose: %u text range(s) registered each time\n",
		       iterations, obj.ntext);
	return CHILD_OK;
}

/*
 * Under the audit module, the library with a build ID too long for the
 * kernel: registered all the same, without a build ID.
 */
static int child_longid(const char *path)
{
	struct ct_object obj;
	void *h;

	h = open_lib(path, &obj);
	if (!h)
		return CHILD_BROKEN;
	if (obj.build_id_note_len != CT_LONGID_LEN) {
		ksft_print_msg("%s has a build ID of %u bytes, not %d\n", path,
			       obj.build_id_note_len, CT_LONGID_LEN);
		ksft_print_msg("%s\n", "it must be built with -Wl,--build-id=0x...");
		return CHILD_BROKEN;
	}
	/* child_audit() counts the registrations before its own dlopen. */
	if (dlclose(h)) {
		ksft_print_msg("dlclose: %s\n", dlerror());
		return CHILD_BROKEN;
	}
	/* ct_dl_object() left the too long build ID out: "" is expected. */
	return child_audit(path, 1);
}

/*
 * Run as "ld.so PROGRAM" under the audit module: the kernel registered
 * ld.so, and the module must have registered the program, which ld.so
 * mapped, before it registers the library.
 */
static int child_ldso(const char *lib)
{
	struct ct_object self;
	struct ct_line l;
	int n = 0;

	if (ct_self_object(&self))
		return CHILD_BROKEN;
	if (!self.sframe_start) {
		ksft_print_msg("%s\n",
			       "codectl_dlopen has no PT_GNU_SFRAME: it must be built with -Wa,--gsframe");
		return CHILD_BROKEN;
	}
	if (ct_sframe_lines(self.text_start[0], &l, &n, NULL) < 0)
		return CHILD_BROKEN;
	if (n != 1 || strcmp(l.source, "codectl") ||
	    l.sframe_start != self.sframe_start) {
		ksft_print_msg("run by ld.so, the program is not registered by codectl\n");
		ct_sframe_dump();
		return CHILD_WRONG;
	}
	return child_audit(lib, 1);
}

static const char *child_verdict(int ret)
{
	switch (ret) {
	case CHILD_OK:
		return "as expected";
	case CHILD_WRONG:
		return "wrong registrations";
	case CHILD_BROKEN:
		return "could not run";
	default:
		return "failed";
	}
}

int main(int argc, char **argv)
{
	char dir[PATH_MAX], lib[PATH_MAX + 32], audit[PATH_MAX + 64];
	char longid[PATH_MAX + 32];
	char *err = NULL;
	int ret;

	/* Run by ld.so, /proc/self/exe is ld.so: the library comes along. */
	if (argc > 3 && !strcmp(argv[1], "--child") && !strcmp(argv[2], "ldso"))
		return child_ldso(argv[3]);
	if (ct_exe_dir(dir, sizeof(dir)))
		return CHILD_BROKEN;
	snprintf(lib, sizeof(lib), "%s/%s", dir, CT_LIB_SO);
	snprintf(longid, sizeof(longid), "%s/%s", dir, CT_LONGID_SO);
	if (argc > 2 && !strcmp(argv[1], "--child")) {
		if (!strcmp(argv[2], "plain"))
			return child_plain(lib);
		if (!strcmp(argv[2], "longid"))
			return child_longid(longid);
		return child_audit(lib, argc > 3 ? atoi(argv[3]) : 1);
	}

	ksft_print_header();
	ksft_set_plan(7);
	snprintf(audit, sizeof(audit), "LD_AUDIT=%s/%s", dir, CT_AUDIT_SO);
	if (access(audit + strlen("LD_AUDIT="), R_OK))
		ksft_exit_fail_msg("%s: %s\n", audit + strlen("LD_AUDIT="),
				   strerror(errno));
	if (access(lib, R_OK))
		ksft_exit_fail_msg("%s: %s\n", lib, strerror(errno));
	if (access(longid, R_OK))
		ksft_exit_fail_msg("%s: %s\n", longid, strerror(errno));

	{
		char *const args[] = { argv[0], "--child", "plain", NULL };

		ret = ct_run_self(args, NULL, 60, NULL);
		ksft_test_result(ret == CHILD_OK,
				 "without the audit module, dlopen registers nothing (%s)\n",
				 child_verdict(ret));
	}
	{
		char count[16];
		char *const args[] = { argv[0], "--child", "audit", count, NULL };

		snprintf(count, sizeof(count), "%d", ITERATIONS);
		ret = ct_run_self(args, audit, 600, &err);
		ksft_test_result(ret == CHILD_OK,
				 "under LD_AUDIT=%s, %d dlopen/dlclose (un)register the library (%s)\n",
				 CT_AUDIT_SO, ITERATIONS, child_verdict(ret));
		if (err && *err)
			ksft_print_msg("its standard error:\n%s", err);
		ksft_test_result(ret >= 0 && err && !*err,
				 "the audit module writes nothing on success\n");
		free(err);
		err = NULL;
	}
	{
		char *const args[] = { argv[0], "--child", "audit", "1", NULL };
		const char *shown;

		/* ct_run_self() adds LD_AUDIT; this one comes from environ. */
		setenv("SFRAME_AUDIT_DEBUG", "1", 1);
		ret = ct_run_self(args, audit, 60, &err);
		unsetenv("SFRAME_AUDIT_DEBUG");
		shown = err ? strstr(err, "registered text") : NULL;
		if (!shown)
			ksft_print_msg("standard error with SFRAME_AUDIT_DEBUG=1:\n%s",
				       err ? err : "(none)\n");
		ksft_test_result(ret == CHILD_OK && shown &&
				 strstr(err, CT_LIB_SO),
				 "with SFRAME_AUDIT_DEBUG=1 it reports the registrations\n");
		free(err);
	}
	{
		char exe[PATH_MAX + 32];
		const char *interp = ct_interp();
		char *const args[] = { (char *)interp, exe, "--child", "ldso",
				       lib, NULL };

		snprintf(exe, sizeof(exe), "%s/codectl_dlopen", dir);
		ret = interp ? ct_run(interp, args, audit, 60, NULL) : -1;
		ksft_test_result(ret == CHILD_OK,
				 "run as \"ld.so codectl_dlopen\": the module registers the program (%s)\n",
				 child_verdict(ret));
	}
	{
		char *const args[] = { argv[0], "--child", "longid", NULL };

		ret = ct_run_self(args, audit, 60, &err);
		if (err && *err)
			ksft_print_msg("its standard error:\n%s", err);
		ksft_test_result(ret == CHILD_OK && err && !*err,
				 "a build ID of %d bytes: the module registers the library without it, silently (%s)\n",
				 CT_LONGID_LEN, child_verdict(ret));
		free(err);
		err = NULL;
	}
	{
		char *const args[] = { argv[0], "--child", "longid", NULL };
		char want[64];
		const char *said;

		snprintf(want, sizeof(want), "build ID of %d bytes",
			 CT_LONGID_LEN);
		setenv("SFRAME_AUDIT_DEBUG", "1", 1);
		ret = ct_run_self(args, audit, 60, &err);
		unsetenv("SFRAME_AUDIT_DEBUG");
		said = err ? strstr(err, want) : NULL;
		if (!said)
			ksft_print_msg("no '%s' in its standard error:\n%s",
				       want, err ? err : "(none)\n");
		ksft_test_result(ret == CHILD_OK && said &&
				 strstr(err, CT_LONGID_SO),
				 "with SFRAME_AUDIT_DEBUG=1 it says it left the build ID out\n");
		free(err);
	}
	ksft_finished();
}
