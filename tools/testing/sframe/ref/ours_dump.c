// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-ours: the decoder's side of the differential test.  Maps an ELF
 * file's SFrame section into the harness's fake user memory, registers it
 * once per executable segment, and prints the canonical line (canon.h) of
 * every PC of a list read from stdin, looked up as the topmost frame:
 *
 *   sframe-ours [-m N] FILE <PCS
 *
 * Reads outside the section abort (test_mem_set_window()).  -m N corrupts the
 * rule of every Nth PC that has one (CFA offset + 8), for the test that shows
 * the comparison catches a wrong line.
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/sframe.h>

#include "canon.h"
#include "sfelf.h"
#include "test_mem.h"

int main(int argc, char **argv)
{
	unsigned long npcs = 0, nfound = 0, nenoent = 0, nother = 0;
	unsigned long mutate = 0, nmutated = 0;
	struct sframe_section sec[SFELF_MAX_LOADS];
	struct sfelf e;
	unsigned int i;
	uint64_t pc;
	int rc, opt;

	while ((opt = getopt(argc, argv, "m:")) != -1) {
		if (opt != 'm')
			return 2;
		mutate = strtoul(optarg, NULL, 0);
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "usage: %s [-m N] FILE <PCS\n", argv[0]);
		return 2;
	}
	if (sfelf_open(&e, argv[optind]))
		return 2;

	test_mem_reset();
	if (test_mem_map(e.sframe_vaddr, e.sframe, e.sframe_len)) {
		fprintf(stderr, "%s: cannot map the section\n", e.path);
		return 2;
	}
	test_mem_set_window(e.sframe_vaddr, e.sframe_vaddr + e.sframe_len);
	for (i = 0; i < e.ntext; i++) {
		rc = sframe_section_init(&sec[i], e.sframe_vaddr,
					 e.sframe_vaddr + e.sframe_len,
					 e.sframe_vaddr, e.text[i].start,
					 e.text[i].end);
		if (rc) {
			fprintf(stderr, "%s: sframe_section_init: %d (%s)\n",
				e.path, rc, test_last_reject() ?: "?");
			return 2;
		}
	}

	while ((rc = sfelf_read_pc(stdin, &pc)) > 0) {
		int t = sfelf_text_of(&e, pc);
		struct sframe_rule rule;
		struct canon_rule c;
		u32 budget = SFRAME_WALK_BUDGET;

		npcs++;
		/* Outside the text: the first registration must refuse it */
		memset(&rule, 0, sizeof(rule));
		rc = sframe_find_rule(&sec[t < 0 ? 0 : t], pc, true, &rule,
				      &budget);
		if (rc) {
			if (rc == -ENOENT)
				nenoent++;
			else if (nother++ < 10)
				fprintf(stderr, "%s: %#llx: error %d (%s)\n",
					e.path, (unsigned long long)pc, rc,
					test_last_reject() ?: "no reason");
			canon_print(stdout, e.machine, pc, NULL);
			continue;
		}
		nfound++;
		canon_from_rule(&c, &rule);
		if (mutate && nfound % mutate == 0) {
			c.cfa.off += 8;
			nmutated++;
		}
		canon_print(stdout, e.machine, pc, &c);
	}
	if (rc < 0) {
		fprintf(stderr, "%s: malformed PC list\n", argv[0]);
		return 2;
	}
	fprintf(stderr, "fdes %u pcs %lu found %lu enoent %lu other-errors %lu mutated %lu\n",
		sec[0].num_fdes, npcs, nfound, nenoent, nother, nmutated);
	sfelf_close(&e);
	return ferror(stdout) ? 2 : 0;
}
