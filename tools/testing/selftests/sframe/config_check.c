// SPDX-License-Identifier: GPL-2.0
/*
 * Check that the running kernel is the one built for these tests: every
 * option of this directory's kselftest "config" fragment must be set the
 * same way in /proc/config.gz, and, when the harness passes
 * SFRAME_EXPECT_RELEASE, uname -r must be that release.  And that the
 * machine has the two CPUs the race tests need.
 *
 * The fragment is read from the directory of this program (kselftest
 * installs it next to the tests), or from the current directory.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "../kselftest.h"

#define MAX_OPTS	256
#define LINE_LEN	512

struct opt {
	char name[128];
	char value[LINE_LEN];	/* "" when "is not set" */
};

static struct opt want[MAX_OPTS];
static unsigned int nr_want;

/* Split "CONFIG_X=v" or "# CONFIG_X is not set"; false for other lines. */
static bool parse_line(const char *line, struct opt *o)
{
	const char *eq;
	size_t len;

	if (!strncmp(line, "# CONFIG_", 9)) {
		const char *end = strstr(line, " is not set");

		if (!end)
			return false;
		len = end - (line + 2);
		if (len >= sizeof(o->name))
			return false;
		memcpy(o->name, line + 2, len);
		o->name[len] = '\0';
		o->value[0] = '\0';
		return true;
	}
	if (strncmp(line, "CONFIG_", 7))
		return false;
	eq = strchr(line, '=');
	if (!eq || (size_t)(eq - line) >= sizeof(o->name))
		return false;
	len = eq - line;
	memcpy(o->name, line, len);
	o->name[len] = '\0';
	snprintf(o->value, sizeof(o->value), "%s", eq + 1);
	o->value[strcspn(o->value, "\n")] = '\0';
	return true;
}

static FILE *open_fragment(char *path, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n;
	FILE *f;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		snprintf(path, len, "%s/config", dirname(exe));
		f = fopen(path, "r");
		if (f)
			return f;
	}
	snprintf(path, len, "config");
	return fopen(path, "r");
}

static int read_fragment(void)
{
	char path[PATH_MAX + 16], line[LINE_LEN];
	FILE *f;

	f = open_fragment(path, sizeof(path));
	if (!f) {
		ksft_print_msg("cannot open the config fragment next to the test: %s\n",
			       strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (nr_want == MAX_OPTS) {
			ksft_print_msg("%s: more than %d options\n", path,
				       MAX_OPTS);
			fclose(f);
			return -1;
		}
		if (parse_line(line, &want[nr_want]))
			nr_want++;
	}
	fclose(f);
	ksft_print_msg("%s: %u options\n", path, nr_want);
	return 0;
}

/* Mark in @found which wanted options the running kernel has, and how. */
static int read_running(char found[][LINE_LEN], bool *present)
{
	char line[LINE_LEN];
	FILE *f;
	int status;

	if (access("/proc/config.gz", R_OK)) {
		ksft_print_msg("/proc/config.gz: %s (CONFIG_IKCONFIG_PROC?)\n",
			       strerror(errno));
		return -1;
	}
	f = popen("gzip -dc /proc/config.gz", "r");
	if (!f) {
		ksft_perror("popen(gzip -dc /proc/config.gz)");
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		struct opt o;
		unsigned int i;

		if (!parse_line(line, &o))
			continue;
		for (i = 0; i < nr_want; i++) {
			if (strcmp(o.name, want[i].name))
				continue;
			present[i] = true;
			snprintf(found[i], LINE_LEN, "%s", o.value);
		}
	}
	status = pclose(f);
	if (status) {
		ksft_print_msg("gzip -dc /proc/config.gz failed (status %#x)\n",
			       status);
		return -1;
	}
	return 0;
}

static void check_release(void)
{
	const char *expect = getenv("SFRAME_EXPECT_RELEASE");
	struct utsname u;

	if (!expect || !*expect) {
		ksft_test_result_skip("uname -r: SFRAME_EXPECT_RELEASE not set\n");
		return;
	}
	if (uname(&u)) {
		ksft_perror("uname");
		ksft_test_result_fail("uname -r is %s\n", expect);
		return;
	}
	if (strcmp(u.release, expect))
		ksft_print_msg("running %s, expected %s\n", u.release, expect);
	ksft_test_result(!strcmp(u.release, expect), "uname -r is %s\n",
			 expect);
}

/*
 * The race tests -- the generation case of sframe_v*_verdict, the rewrites
 * of sframe_v*_hostile -- run their threads truly in parallel only on two
 * CPUs or more; on one, the interleavings they are after are rare or never
 * happen, and they pass without having tested anything.
 */
static void check_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	ksft_print_msg("%ld CPUs online, %ld configured\n", n,
		       sysconf(_SC_NPROCESSORS_CONF));
	if (n < 2) {
		ksft_print_msg("the race tests (verdict, hostile) run their threads truly\n");
		ksft_print_msg("in parallel only with 2 CPUs: with fewer they test little\n");
		ksft_print_msg("(QEMU on x86 shows its CPUs to a kernel with CONFIG_ACPI)\n");
	}
	ksft_test_result(n >= 2, "at least 2 CPUs online, for the race tests\n");
}

int main(void)
{
	static char found[MAX_OPTS][LINE_LEN];
	static bool present[MAX_OPTS];
	unsigned int i;
	bool have_running;

	ksft_print_header();
	if (read_fragment())
		ksft_exit_fail_msg("no config fragment to check against\n");
	ksft_set_plan(nr_want + 2);

	have_running = !read_running(found, present);
	for (i = 0; i < nr_want; i++) {
		const struct opt *o = &want[i];
		bool ok;

		if (!have_running) {
			ksft_test_result_fail("%s: running config unreadable\n",
					      o->name);
			continue;
		}
		if (o->value[0]) {
			ok = present[i] && !strcmp(found[i], o->value);
			if (!ok)
				ksft_print_msg("%s: want %s, running kernel has %s\n",
					       o->name, o->value,
					       present[i] && found[i][0] ?
					       found[i] : "it unset");
			ksft_test_result(ok, "%s=%s\n", o->name, o->value);
		} else {
			ok = !present[i] || !found[i][0];
			if (!ok)
				ksft_print_msg("%s: want it unset, running kernel has %s\n",
					       o->name, found[i]);
			ksft_test_result(ok, "%s is not set\n", o->name);
		}
	}
	check_release();
	check_cpus();
	ksft_finished();
}
