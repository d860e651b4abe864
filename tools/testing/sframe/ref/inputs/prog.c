// SPDX-License-Identifier: GPL-2.0
/*
 * A small program with the shapes of code compilers give SFrame rows for:
 * recursion, variadic functions, variable-length arrays and alloca(), large
 * frames, many callee-saved registers, arguments on the stack, switch
 * tables, indirect and tail calls, setjmp()/longjmp(), cold paths and
 * noreturn calls.  Built with several compilers and flags; it runs, but the
 * differential test only decodes it.
 */
#include <alloca.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* noinline, __cold, __noreturn, __printf() */
#include "../../shim/linux/compiler_attributes.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct node {
	int		op;	/* 0: number, else '+', '-', '*', '/' */
	long		val;
	struct node	*l, *r;
};

static jmp_buf parse_error;
static const char *cursor;

static __noreturn __cold noinline void fail(const char *what)
{
	fprintf(stderr, "parse error: %s at '%s'\n", what, cursor);
	longjmp(parse_error, 1);
}

static struct node *new_node(int op, long val, struct node *l, struct node *r)
{
	struct node *n = malloc(sizeof(*n));

	if (!n)
		fail("out of memory");
	n->op = op;
	n->val = val;
	n->l = l;
	n->r = r;
	return n;
}

static struct node *parse_sum(void);

static struct node *parse_atom(void)
{
	while (*cursor == ' ')
		cursor++;
	if (*cursor == '(') {
		struct node *n;

		cursor++;
		n = parse_sum();
		if (*cursor++ != ')')
			fail("missing )");
		return n;
	}
	if (*cursor >= '0' && *cursor <= '9') {
		char *end;
		long v = strtol(cursor, &end, 10);

		cursor = end;
		return new_node(0, v, NULL, NULL);
	}
	fail("unexpected character");
}

static struct node *parse_product(void)
{
	struct node *n = parse_atom();

	for (;;) {
		while (*cursor == ' ')
			cursor++;
		if (*cursor != '*' && *cursor != '/')
			return n;
		n = new_node(*cursor++, 0, n, parse_atom());
	}
}

static struct node *parse_sum(void)
{
	struct node *n = parse_product();

	for (;;) {
		while (*cursor == ' ')
			cursor++;
		if (*cursor != '+' && *cursor != '-')
			return n;
		n = new_node(*cursor++, 0, n, parse_product());
	}
}

static long eval(const struct node *n)
{
	long l, r;

	switch (n->op) {
	case 0:
		return n->val;
	case '+':
		return eval(n->l) + eval(n->r);
	case '-':
		return eval(n->l) - eval(n->r);
	case '*':
		return eval(n->l) * eval(n->r);
	case '/':
		l = eval(n->l);
		r = eval(n->r);
		return r ? l / r : 0;
	}
	abort();
}

static void free_tree(struct node *n)
{
	if (!n)
		return;
	free_tree(n->l);
	free_tree(n->r);
	free(n);
}

static int evaluate(const char *text, long *out)
{
	struct node *tree;

	cursor = text;
	if (setjmp(parse_error))
		return -1;
	tree = parse_sum();
	*out = eval(tree);
	free_tree(tree);
	return 0;
}

/* Variadic, with a big local buffer */
static __printf(2, 3) int report(FILE *f, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fputs(buf, f);
	return n;
}

/* Arguments passed on the stack, many live values */
static noinline long mix(long a, long b, long c, long d, long e, long f,
			 long g, long h, long i, long j)
{
	long x = a * b + c, y = d ^ e, z = f - g, w = h | i;

	for (int k = 0; k < (int)(j & 15); k++) {
		x = x * 31 + y;
		y = y * 17 + z;
		z = z * 13 + w;
		w = w * 7 + x;
	}
	return x ^ y ^ z ^ w;
}

/* A variable-length array and alloca() */
static noinline unsigned int checksum(const char *s, int n)
{
	unsigned char vla[n + 1];
	char *copy = alloca(n + 16);
	unsigned int sum = 0;

	memcpy(copy, s, n);
	for (int i = 0; i < n; i++) {
		vla[i] = (unsigned char)copy[i];
		sum = sum * 33 + vla[i];
	}
	return sum;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

/* Indirect calls through a table */
typedef long (*op_fn)(long, long);

static long op_add(long a, long b) { return a + b; }
static long op_sub(long a, long b) { return a - b; }
static long op_mul(long a, long b) { return a * b; }

static const op_fn ops[] = { op_add, op_sub, op_mul };

static noinline long fold(const long *v, int n, int which)
{
	long acc = v[0];

	for (int i = 1; i < n; i++)
		acc = ops[which % 3](acc, v[i]);
	return acc;
}

/* Tail recursion the compiler may turn into a loop or a jump */
static noinline long gcd(long a, long b)
{
	return b ? gcd(b, a % b) : a;
}

static const char *const exprs[] = {
	"1 + 2 * 3",
	"(4 + 5) * (6 - 7)",
	"100 / (3 + 2) - 8",
	"2 * (3 * (4 * (5 + 1)))",
	"7 +",
};

int main(int argc, char **argv)
{
	long results[ARRAY_SIZE(exprs)];
	unsigned int n = 0, i;
	long v;

	for (i = 0; i < ARRAY_SIZE(exprs); i++) {
		if (evaluate(exprs[i], &v) == 0) {
			report(stdout, "%s = %ld\n", exprs[i], v);
			results[n++] = v;
		}
	}
	qsort(results, n, sizeof(results[0]), cmp_long);
	report(stdout, "fold %ld, mix %ld, gcd %ld, sum %u\n",
	       fold(results, n, argc), mix(1, 2, 3, 4, 5, 6, 7, 8, 9, argc),
	       gcd(results[n - 1], 12), checksum(argv[0], strlen(argv[0])));
	return 0;
}
