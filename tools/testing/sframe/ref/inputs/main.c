// SPDX-License-Identifier: GPL-2.0
/* The main() of the hand-written corner-case inputs: only decoded. */
int main(void)
{
	return 0;
}
